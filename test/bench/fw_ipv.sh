#!/usr/bin/env bash
# Instructions per value of column decoding on Cortex-M4 (mps2-an386 under
# qemu with -icount: examples/firmware/ipv_main.c), for PLAIN INT64,
# dictionary INT32 (100 values), DELTA_BINARY_PACKED INT64 timestamps and
# BYTE_STREAM_SPLIT FLOAT, 50,000 required values each, uncompressed pages of
# the writer's default size, written by the host's upq; each with the page
# CRC checked (the default) and without. Then the sensor logger's
# instructions per row (examples/firmware/logger_main.c --count): an hour at
# 10 Hz with its default row groups, pages and checkpoints, of that the
# synthetic sample alone (the generator's loop without the library), and
# the library's share (the difference). And logging through runs (ipv_main.c --runs): 8
# FLOAT channels of 32,768 samples each, appended 256 at a time in
# checkpoint mode with the page CRC, instructions per value from init
# through close. With RV_IPV (and RV_LOGGER) set, the same figures
# for the RV32IMAC images under qemu-system-riscv32 (instret counts them).
#
#   [RV_IPV=ELF RV_LOGGER=ELF] fw_ipv.sh UPQ FW_IPV_ELF WORKDIR [LOGGER_ELF]
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

# machine MACHINE: qemu's command for one of the two cores
machine() {
    case $1 in
    cm4) echo "$qemu -M mps2-an386" ;;
    rv32) echo "${QEMU_RISCV32:-qemu-system-riscv32} -M virt -bios none -m 64M" ;;
    esac
}

# run MACHINE ELF FILE CRC-FLAG: instructions per value
run() {
    # shellcheck disable=SC2046
    timeout 300 $(machine "$1") -nographic -monitor none -icount shift=0 \
        -semihosting-config enable=on,target=native -kernel "$2" -append "$3 2 $4" |
        sed -n 's/^per value //p'
}

# table TITLE MACHINE IPV_ELF [LOGGER_ELF]
table() {
    local title=$1 m=$2 ipv=$3 lg=${4:-} f file name a b out per smp rows
    printf '%-34s %14s %14s\n' "$title, instructions per value" "CRC checked" "no CRC"
    for f in plain:"PLAIN INT64" dictionary:"dictionary INT32" delta:"DELTA_BINARY_PACKED INT64" \
        bss:"BYTE_STREAM_SPLIT FLOAT"; do
        file=${f%%:*}.parquet name=${f#*:}
        a=$(run "$m" "$ipv" "$file" "") b=$(run "$m" "$ipv" "$file" --no-crc)
        [ -n "$a" ] && [ -n "$b" ] || { echo "fw_ipv: $title: $file: no figure" >&2; exit 1; }
        printf '%-34s %14s %14s\n' "$name" "$a" "$b"
    done
    # logging runs: 8 FLOAT channels x 32,768 samples appended as runs of 256
    rm -f runs.parquet
    # shellcheck disable=SC2046
    out=$(timeout 300 $(machine "$m") -nographic -monitor none -icount shift=0 \
        -semihosting-config enable=on,target=native -kernel "$ipv" -append "--runs 32768 runs.parquet")
    per=$(printf '%s\n' "$out" | sed -n 's/^per value //p')
    [ -n "$per" ] || { echo "fw_ipv: $title: runs: no figure" >&2; printf '%s\n' "$out" >&2; exit 1; }
    # the file it wrote must read: its rows, and row 257's samples (i % 256 = 1)
    rows=$("$upq" meta runs.parquet | sed -n 's/^num_rows: *//p')
    [ "$rows" = 32768 ] || { echo "fw_ipv: $title: runs: the file holds '$rows' rows, not 32768" >&2; exit 1; }
    row=$("$upq" cat --json runs.parquet | sed -n 258p)
    [ "$row" = '{"ch0":0.25,"ch1":1.25,"ch2":2.25,"ch3":3.25,"ch4":4.25,"ch5":5.25,"ch6":6.25,"ch7":7.25}' ] ||
        { echo "fw_ipv: $title: runs: row 257 reads $row" >&2; exit 1; }
    printf '%-34s %14s\n' "runs of 8 x 32,768 FLOAT samples" "$per"
    [ -n "$lg" ] || return 0
    # the logger refuses to write over a file (it would resume it): the last
    # run's goes first, so the benchmark runs again without a clean
    rm -f logger.parquet
    # shellcheck disable=SC2046
    out=$(timeout 600 $(machine "$m") -nographic -monitor none -icount shift=0 \
        -semihosting-config enable=on,target=native -kernel "$lg" \
        -append "--rows 36000 --count logger.parquet")
    per=$(printf '%s\n' "$out" | sed -n 's/^per row //p')
    smp=$(printf '%s\n' "$out" | sed -n 's/^sample per row //p')
    [ -n "$per" ] && [ -n "$smp" ] || { echo "fw_ipv: $title: logger: no figure" >&2; printf '%s\n' "$out" >&2; exit 1; }
    # the file it wrote must read: the row count is the one asked for
    rows=$("$upq" meta logger.parquet | sed -n 's/^num_rows: *//p')
    [ "$rows" = 36000 ] || { echo "fw_ipv: $title: logger: the file holds '$rows' rows, not 36000" >&2; exit 1; }
    # the library's share: the whole loop less the synthetic readings (the
    # same generator run alone), which a board replaces with its sensors
    lib=$(awk -v a="$per" -v b="$smp" 'BEGIN { printf "%.2f", a - b }')
    printf '%-34s %14s %14s %14s\n' "$title, instructions per row" "logger" "of it, sample" "library"
    printf '%-34s %14s %14s %14s\n' "sensor logger, 36,000 rows (1 h)" "$per" "$smp" "$lib"
}

table "Cortex-M4" cm4 "$elf" "$logger"
if [ -n "${RV_IPV:-}" ]; then
    table "RV32IMAC" rv32 "$RV_IPV" "${RV_LOGGER:-}"
fi
