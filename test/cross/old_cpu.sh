#!/usr/bin/env bash
# The host build on x86-64 CPUs it was not built on (make check-old-cpu):
#
#  1. host test programs under qemu-x86_64 with a CPU model without AVX2 and
#     PCLMULQDQ (OLD_CPU, default Nehalem): the library is built for the
#     baseline ISA and must choose the table CRC there (test_crc32 checks
#     the choice); a carry-less multiply on that CPU is a SIGILL, a crash,
#     a failure (qemu 7.2 lets AVX2 itself through: what the stage proves is
#     the CRC dispatch and the baseline build);
#  2. the host tools (upq, sensor_logger) under valgrind's memcheck, whose
#     CPU has no VPCLMULQDQ (PCLMULQDQ then): reading corpus files with page
#     CRCs and each codec, writing a file with page CRCs and reading it back,
#     a short checkpointed sensor log; any memcheck error fails.
#
#   old_cpu.sh UPQ SENSOR_LOGGER WORKDIR -- TEST_PROGRAM...
#
# Prints the runs and a last line `N passed, N failed`. Skips (exit 77) on a
# machine that is not x86-64 or lacks qemu-x86_64 or valgrind.
set -u
upq=${1:?upq} sensor=${2:?sensor_logger} work=${3:?work dir}
shift 3
[ "${1:-}" = -- ] && shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
cpu=${OLD_CPU:-Nehalem}
data=${PARQUET_TESTING_DIR:-$top/../shared/parquet-testing}/data

if [ "$(uname -m)" != x86_64 ] || ! command -v qemu-x86_64 >/dev/null ||
    ! command -v valgrind >/dev/null; then
    echo "SKIP old-cpu: needs an x86-64 machine with qemu-x86_64 and valgrind"
    exit 77
fi
mkdir -p "$work"
passed=0
failed=0

# 1. the test programs on the old CPU, through the harness (its logs and
# timeout); UPQ_TEST_QUICK: fewer repeats of the chunked reads, every value
# still checked
if UPQ_TEST_QUICK=1 bash "$top/test/run_tests.sh" --label "old-cpu-$cpu" --logdir "$work/logs" \
    --timeout 600 --runner "qemu-x86_64 -cpu $cpu" -- "$@" >"$work/tests.log" 2>&1; then :; fi
cat "$work/tests.log"
line=$(grep -E '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed' "$work/tests.log" | tail -n 1)
if [ -n "$line" ]; then
    passed=$((passed + $(sed -E 's/^([A-Za-z_-]+: )?([0-9]+) passed.*/\2/' <<<"$line")))
    failed=$((failed + $(sed -E 's/^([A-Za-z_-]+: )?[0-9]+ passed, ([0-9]+) failed.*/\2/' <<<"$line")))
else
    echo "FAIL old-cpu: the test programs gave no summary"
    failed=$((failed + 1))
fi

# the CRC kernel chosen on that CPU is the table (Nehalem has no PCLMULQDQ)
if grep -q 'this CPU: the table' "$work/logs/test_crc32.log" 2>/dev/null; then
    echo "PASS old-cpu: the table CRC chosen on $cpu"
    passed=$((passed + 1))
else
    echo "FAIL old-cpu: test_crc32 did not choose the table CRC on $cpu"
    failed=$((failed + 1))
fi

# 2. the tools under memcheck
vg() {
    local name=$1
    shift
    if valgrind -q --error-exitcode=99 --leak-check=full "$@" >"$work/vg.out" 2>"$work/vg.err"; then
        echo "PASS valgrind: $name"
        passed=$((passed + 1))
    else
        echo "FAIL valgrind: $name (exit $?)"
        tail -n 30 "$work/vg.err"
        failed=$((failed + 1))
    fi
}
for f in datapage_v1-snappy-compressed-checksum.parquet rle-dict-snappy-checksum.parquet \
    alltypes_plain.parquet byte_stream_split.zstd.parquet lz4_raw_compressed_larger.parquet \
    concatenated_gzip_members.parquet delta_encoding_optional_column.parquet; do
    vg "upq cat --json $f" "$upq" cat --json "$data/$f"
done
vg "upq meta --json alltypes_plain.parquet" "$upq" meta --json "$data/alltypes_plain.parquet"
# a file with page CRCs written here: pages of a few KB, so every CRC kernel
# length (64-byte blocks and the table's tail) is taken
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "{\"t\":%d,\"v\":%.3f,\"s\":\"dev%d\"}\n", 1700000000000 + i * 100, i / 8.0, i % 7 }' \
    >"$work/in.jsonl"
printf 'message m {\n  required int64 t;\n  optional double v;\n  optional binary s (STRING);\n}\n' \
    >"$work/in.schema"
rm -f "$work/out.parquet"
vg "upq write (page CRCs)" "$upq" write --schema "$work/in.schema" "$work/in.jsonl" "$work/out.parquet"
vg "upq cat --json of it" "$upq" cat --json "$work/out.parquet"
rm -f "$work/logger.parquet"
vg "sensor_logger --rows 3000" "$sensor" --rows 3000 "$work/logger.parquet"

echo "old-cpu: $passed passed, $failed failed"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
