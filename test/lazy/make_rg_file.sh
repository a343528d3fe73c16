#!/usr/bin/env bash
# A file of ROWS rows of 11 columns (timestamps, ints, doubles, strings,
# booleans, floats, dates; nulls in five of them), one row per row group,
# written by `upq write --row-group-rows 1`: the many-row-group input of
# test/lazy/lazy_rg.sh and test/firmware/run.sh.
#
#   test/lazy/make_rg_file.sh UPQ ROWS OUT.parquet
set -u
upq=${1:?UPQ} rows=${2:?ROWS} out=${3:?OUT}
cat >"$out.schema" <<'SCHEMA'
message m {
  required int64 ts (TIMESTAMP(MILLIS,true));
  required int32 id;
  optional double v;
  optional binary name (STRING);
  required boolean flag;
  optional int32 opt;
  required float f;
  required int64 big;
  optional binary tag (STRING);
  required int32 day (DATE);
  optional int64 cnt;
}
SCHEMA
awk -v n="$rows" 'BEGIN {
    for (i = 0; i < n; i++) {
        v = (i % 7 == 0) ? "null" : sprintf("%.1f", i * 0.5)
        opt = (i % 3 == 0) ? "null" : i * 3
        tag = (i % 5 == 0) ? "null" : sprintf("\"t%d\"", i % 17)
        printf("{\"ts\":%.0f,\"id\":%d,\"v\":%s,\"name\":\"dev%d\",\"flag\":%s,\"opt\":%s,\"f\":%.2f,\"big\":%.0f,\"tag\":%s,\"day\":%d,\"cnt\":%d}\n",
               1700000000000 + i * 1000, i, v, i % 13, (i % 2 == 0) ? "true" : "false", opt,
               i * 0.25, i * 1000003, tag, 19000 + i % 400, i % 11)
    }
}' >"$out.jsonl"
"$upq" write --schema "$out.schema" --row-group-rows 1 --max-row-groups "$rows" "$out.jsonl" "$out"
rc=$?
rm -f "$out.jsonl" "$out.schema"
exit $rc
