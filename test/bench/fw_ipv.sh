#!/usr/bin/env bash
# Instructions per value of column decoding on Cortex-M4 (mps2-an386 under
# qemu with -icount: examples/firmware/ipv_main.c), for PLAIN INT64,
# dictionary INT32 (100 values), DELTA_BINARY_PACKED INT64 timestamps and
# BYTE_STREAM_SPLIT FLOAT, 50,000 required values each, uncompressed pages of
# the writer's default size, written by the host's upq; each with the page
# CRC checked (the default) and without. Then the sensor logger's
# instructions per row (examples/firmware/logger_main.c --count): an hour at
# 10 Hz with its default row groups, pages and checkpoints, and of that the
# synthetic sample alone.
#
#   fw_ipv.sh UPQ FW_IPV_ELF WORKDIR [LOGGER_ELF]
set -euo pipefail
upq=${1:?upq} elf=${2:?fw_ipv.elf} work=${3:?work dir} logger=${4:-}
qemu=${QEMU_ARM:-qemu-system-arm}
mkdir -p "$work"
cd "$work"
n=50000
# values: a scrambled INT64, an INT32 of 100 values, timestamps 100 ms apart
# with jitter, FLOATs in eighths
awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "{\"v\":%d}\n", (i * 2654435761) % 1000003 }' >i64.jsonl
awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "{\"v\":%d}\n", (i * 7919) % 100 }' >i32.jsonl
# (%.0f: mawk's %d stops at 2^31 - 1, which made every timestamp the same)
awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "{\"v\":%.0f}\n", 1700000000000 + i * 100 + (i * 37) % 7 }' >ts.jsonl
awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "{\"v\":%.3f}\n", ((i * 7919) % 10007) / 8.0 }' >f32.jsonl
for t in "i64 int64" "i32 int32" "f32 float"; do
    set -- $t
    printf 'message m {\n  required %s v;\n}\n' "$2" >"$1.schema"
done
"$upq" write --schema i64.schema --no-dictionary --encoding PLAIN i64.jsonl plain.parquet
"$upq" write --schema i32.schema i32.jsonl dictionary.parquet
"$upq" write --schema i64.schema --no-dictionary --encoding DELTA_BINARY_PACKED ts.jsonl delta.parquet
"$upq" write --schema f32.schema --no-dictionary --encoding BYTE_STREAM_SPLIT f32.jsonl bss.parquet

run() {
    timeout 300 "$qemu" -M mps2-an386 -nographic -monitor none -icount shift=0 \
        -semihosting-config enable=on,target=native -kernel "$elf" -append "$1 2 $2" |
        sed -n 's/^per value //p'
}
printf '%-34s %14s %14s\n' "Cortex-M4, instructions per value" "CRC checked" "no CRC"
for f in plain:"PLAIN INT64" dictionary:"dictionary INT32" delta:"DELTA_BINARY_PACKED INT64" \
    bss:"BYTE_STREAM_SPLIT FLOAT"; do
    file=${f%%:*}.parquet name=${f#*:}
    a=$(run "$file" "") b=$(run "$file" --no-crc)
    [ -n "$a" ] && [ -n "$b" ] || { echo "fw_ipv: $file: no figure" >&2; exit 1; }
    printf '%-34s %14s %14s\n' "$name" "$a" "$b"
done

if [ -n "$logger" ]; then
    # the logger refuses to write over a file (it would resume it): the last
    # run's goes first, so the benchmark runs again without a clean
    rm -f logger.parquet
    out=$(timeout 600 "$qemu" -M mps2-an386 -nographic -monitor none -icount shift=0 \
        -semihosting-config enable=on,target=native -kernel "$logger" \
        -append "--rows 36000 --count logger.parquet")
    per=$(printf '%s\n' "$out" | sed -n 's/^per row //p')
    smp=$(printf '%s\n' "$out" | sed -n 's/^sample per row //p')
    [ -n "$per" ] && [ -n "$smp" ] || { echo "fw_ipv: logger: no figure" >&2; printf '%s\n' "$out" >&2; exit 1; }
    # the file it wrote must read: the row count is the one asked for
    rows=$("$upq" meta logger.parquet | sed -n 's/^num_rows: *//p')
    [ "$rows" = 36000 ] || { echo "fw_ipv: logger: the file holds '$rows' rows, not 36000" >&2; exit 1; }
    printf '%-34s %14s %14s\n' "Cortex-M4, instructions per row" "logger" "of it, sample"
    printf '%-34s %14s %14s\n' "sensor logger, 36,000 rows (1 h)" "$per" "$smp"
fi
