#!/usr/bin/env bash
# Seed inputs for a fuzz target, taken from the parquet-testing corpus.
#
#   test/fuzz/make_seeds.sh meta OUTDIR   every file's footer (FileMetaData
#                                         bytes) and the bytes at offset 4
#                                         (the first page header)
#   test/fuzz/make_seeds.sh open OUTDIR   links to the whole files
#   test/fuzz/make_seeds.sh rows OUTDIR   the same
#
# Reads the corpus from $PARQUET_TESTING_DIR (default ../shared/parquet-testing).
set -eu
name=$1
out=$2
corpus=${PARQUET_TESTING_DIR:-../shared/parquet-testing}
[ -d "$corpus" ] || { echo "make_seeds.sh: no corpus at $corpus" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"

# Little-endian u32 at byte offset $2 of file $1.
le32() {
    od -An -tu4 -j "$2" -N4 --endian=little "$1" | tr -d ' '
}

n=0
while IFS= read -r -d '' f; do
    rel=${f#"$corpus"/}
    id=$(printf '%s' "$rel" | tr '/ ' '__')
    size=$(stat -c %s "$f")
    case "$name" in
    meta)
        [ "$size" -ge 12 ] || continue
        magic=$(tail -c 4 "$f")
        if [ "$magic" = PAR1 ]; then
            flen=$(le32 "$f" $((size - 8)))
            if [ "$flen" -gt 0 ] && [ "$flen" -le $((size - 12)) ]; then
                tail -c $((flen + 8)) "$f" | head -c "$flen" >"$out/footer-$id"
                n=$((n + 1))
            fi
        fi
        # the first page header starts right after the leading magic
        if [ "$(head -c 4 "$f")" = PAR1 ]; then
            tail -c +5 "$f" | head -c 4096 >"$out/page-$id"
            n=$((n + 1))
        fi
        ;;
    open | rows)
        ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$out/$id"
        n=$((n + 1))
        ;;
    *)
        echo "make_seeds.sh: unknown target '$name'" >&2
        exit 2
        ;;
    esac
done < <(find "$corpus" -type f \( -name '*.parquet' -o -name '*.parquet.encrypted' \) -print0 | sort -z)
echo "seeds for fuzz_$name: $n inputs in $out"
