#!/usr/bin/env bash
# The sensor logger through FatFs and littlefs with power cuts at the block
# device (make check-storage; test/storage/test_storage.c says what each
# cut checks), then DuckDB, arrow-rs and hyparquet on a sample of the files
# written through both adapters: closed, recovered and resumed.
#
#   run.sh TEST_STORAGE UPQ NODE WORK [TEST_STORAGE_NOFASTSEEK]
#
# FatFs: STORAGE_FATFS_ROWS (100,000) rows, STORAGE_CUTS (300) cuts, and the
# reused-card test (a deleted closed log of the same file id under the new
# one, same and other readings, cut in the first row group: the old log's
# bytes lie in the new file's gaps until the writer zeroes them, and its
# records must not be taken for this file's; every closed, recovered and
# resumed file is checked to hold no byte the writer did not write); the adapter
# alone, 200,000 random calls against a model of the file (under a second),
# and built against FatFs as it ships (FF_USE_FASTSEEK 0) when given, with a
# 20,000-row log cut 40 times (a second or two).
# The littlefs adapter alone: 3,000 random calls against a model of the
# file, without buffers and with 64-byte and 1 KiB ones (a few seconds).
# littlefs (through port/adapters/append: the log and its journal file):
# STORAGE_LITTLEFS_ROWS (2,000) rows with STORAGE_CUTS cuts (dense over the
# first row group and the close, and the samples for the other readers),
# then 100,000 rows (two row groups) with STORAGE_LITTLEFS_BIG_CUTS (300,
# issue 27's count) cuts.
# One line per check, then "N passed, N failed".
set -u
bin=${1:?test_storage}
upq=${2:?upq}
node=${3:-node}
work=${4:?work dir}
bin0=${5:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fat_rows=${STORAGE_FATFS_ROWS:-100000}
lfs_rows=${STORAGE_LITTLEFS_ROWS:-2000}
lfs_big_cuts=${STORAGE_LITTLEFS_BIG_CUTS:-300}
cuts=${STORAGE_CUTS:-300}
seed=${UPQ_TEST_SEED:-1}
rm -rf "$work"
mkdir -p "$work/samples"
passed=0
failed=0
t0=$(date +%s)

# run NAME ARGS...: one test_storage run, its counts added
run() {
    local name=$1 log="$work/$1.log"
    shift
    "$bin" "$@" >"$log" 2>&1
    local rc=$? p f
    p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log" | tail -1)
    f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log" | tail -1)
    grep -E '^(FAIL|#)' "$log" | head -20
    if [ -z "$p" ]; then
        echo "FAIL storage: $name: no summary (exit status $rc; log: $log)"
        failed=$((failed + 1))
        return
    fi
    [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ] && f=1
    echo "storage: $name: $p passed, $f failed ($log)"
    passed=$((passed + p))
    failed=$((failed + f))
}

run fatfs --fs fatfs --rows "$fat_rows" --cuts "$cuts" --seed "$seed" --resume-rows 100 --samples "$work/samples"
run littlefs --fs littlefs --rows "$lfs_rows" --cuts "$cuts" --seed "$seed" --resume-rows 100 --samples "$work/samples"
run littlefs-100k --fs littlefs --rows 100000 --cuts "$lfs_big_cuts" --seed "$seed" --resume-rows 100
run fatfs-reused --fs fatfs --reused --rows 20000 --cuts 60 --seed "$seed" --resume-rows 100
run fatfs-adapter --fs fatfs --adapter 200000 --seed "$seed"
run littlefs-adapter --fs littlefs --adapter 3000 --seed "$seed"
if [ -n "$bin0" ]; then
    bin_fast=$bin
    bin=$bin0
    run fatfs-adapter-nofastseek --fs fatfs --adapter 200000 --seed "$seed"
    run fatfs-nofastseek --fs fatfs --rows 20000 --cuts 40 --seed "$seed" --resume-rows 100
    bin=$bin_fast
fi

# the other readers: each sample's rows as upq prints them (test_storage has
# checked upq's reading against the generator), then the three readers
for f in "$work"/samples/*.parquet; do
    [ -e "$f" ] || continue
    "$upq" cat --json "$f" >"${f%.parquet}.jsonl" 2>>"$work/samples.err" || {
        echo "FAIL storage: upq cat --json $f"
        failed=$((failed + 1))
    }
done
log="$work/readers.log"
"$node" "$here/../interop/powerloss_readers.mjs" --upq "$upq" "$work/samples" >"$log" 2>&1
p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log" | tail -1)
f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log" | tail -1)
grep -E '^(ok|FAIL)' "$log"
if [ -z "$p" ]; then
    echo "FAIL storage: DuckDB, arrow-rs, hyparquet: no summary ($log)"
    failed=$((failed + 1))
else
    passed=$((passed + p))
    failed=$((failed + f))
fi

cat <<'PENDING'
# waiting for other work (not run here; `make check-storage-pending` runs them):
#   bench_storage --check's littlefs close and recovery calls (<= 1 per KiB; its
#     programmed and erased targets are met)
#   issue 27 item 3 (FAT-cheap region layout): bench_storage --check's FatFs targets
#     (sectors written <= 1.15x, read <= 0.10x, close and recovery <= 1 call per KiB)
PENDING
echo "# $(($(date +%s) - t0)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
