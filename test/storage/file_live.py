#!/usr/bin/env python3
"""A closed file's size over its live data (make check-storage-held).

    file_live.py UPQ FILE MAX

Live data is what the footer points at, as `upq meta --json` reads it (the
reader's view, not the writer's): every column chunk (dictionary page to
its last data page), ColumnIndex, OffsetIndex and bloom filter, and the
footer with its length and magic, and the leading magic. The rest of the
file is gaps: a checkpoint-mode file's journal areas and what its regions
kept unused. Prints the figure and the largest gaps; exits 1 when file /
live exceeds MAX, or when a range the footer names lies outside the file.
"""
import json
import subprocess
import sys


def main():
    if len(sys.argv) != 4:
        print("usage: file_live.py UPQ FILE MAX", file=sys.stderr)
        return 2
    upq, path, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
    meta = json.loads(subprocess.check_output([upq, "meta", "--json", path]))
    size = meta["file_size"]
    ranges = [(0, 4, "magic"), (size - 8 - meta["footer_length"], size, "footer")]
    for g, rg in enumerate(meta["row_groups"]):
        for c in rg["columns"]:
            start = c["dictionary_page_offset"]
            if start is None or start > c["data_page_offset"]:
                start = c["data_page_offset"]
            name = "row group %d %s" % (g, c["path"])
            ranges.append((start, start + c["total_compressed_size"], name))
            for k in ("column_index", "offset_index", "bloom_filter"):
                off, n = c.get(k + "_offset"), c.get(k + "_length")
                if off is not None and n:
                    ranges.append((off, off + n, "%s %s" % (name, k)))
    ranges.sort()
    pos, gaps, big = 0, 0, []
    for s, e, name in ranges:
        if s < 0 or e > size:
            print("FAIL file_live: %s: %s at %d..%d outside the file (%d bytes)" % (path, name, s, e, size))
            return 1
        if s > pos:
            gaps += s - pos
            big.append((s - pos, name))
        pos = max(pos, e)
    ratio = size / (size - gaps)
    big.sort(reverse=True)
    print("%s: %d bytes, %d of them in gaps; file / live %.4f (held <= %.2f)" % (path, size, gaps, ratio, limit))
    for n, name in big[:4]:
        print("  gap of %d bytes before %s" % (n, name))
    if ratio > limit:
        print("FAIL file_live: file / live %.4f > %.2f" % (ratio, limit))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
