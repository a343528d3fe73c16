#!/usr/bin/env bash
# The RV32IMAC firmware images under qemu-system-riscv32 (virt board,
# machine mode, semihosting) against the host, as test/firmware/run.sh
# holds the Cortex-M4 ones (make check-riscv, a `make check` stage):
#
#  logger  sensor_logger.elf logs 10000 rows in 250-row row groups; the file
#          is byte-identical to the host logger's from the same seed, also
#          through a sink that says "again" every other write, when rotating
#          at 4000 rows, and when resuming a log cut short;
#  reader  fw_reader.elf (256 KB arena) reads every corpus file: its output
#          byte-identical to `upq cat --raw`, and where the host fails its
#          error line the same as upq's; the files of test/firmware/nomem.txt
#          fail with UPQ_ERR_NOMEM and a needed size above the arena, then read
#          as on the host with fw_reader_big.elf (3 MB); those of chunked.txt
#          again with 13-byte reads that say "again" every other call.
#
#   riscv_firmware.sh   (the inputs in the environment: FW_RV_DIR, UPQ, SENSOR,
#                        FW_READER_ARENA, PARQUET_TESTING_DIR, QEMU_RISCV32)
# One line per check, then "N passed, N failed".
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fw=${FW_RV_DIR:?FW_RV_DIR: the RISC-V firmware build directory}
qemu=${QEMU_RISCV32:-qemu-system-riscv32}
upq=${UPQ:?UPQ: the host upq tool}
sensor=${SENSOR:?SENSOR: the host sensor logger}
arena=${FW_READER_ARENA:?}
corpus=${PARQUET_TESTING_DIR:?}
lists=$here/../firmware
timeout_s=${FW_TIMEOUT:-60}
work=$fw/check
rm -rf "$work"
mkdir -p "$work"

# pass, fail, stack_of and compare (test/firmware/compare.sh)
label=riscv
# shellcheck source=../firmware/compare.sh
source "$lists/compare.sh"

if ! command -v "$qemu" >/dev/null 2>&1; then
    echo "SKIP riscv: $qemu is not installed (Debian package qemu-system-misc)"
    exit 77
fi

# qemu_run IMAGE CONSOLE ARGS...: the image with ARGS as its semihosting
# command line (qemu puts the image's name first, as on Arm); console output
# to CONSOLE; returns the image's exit status (124 on timeout).
qemu_run() {
    local image=$1 console=$2
    shift 2
    timeout "$timeout_s" "$qemu" -M virt -bios none -m 64M -nographic -monitor none \
        -semihosting-config enable=on,target=native -kernel "$image" -append "$*" \
        </dev/null >"$console" 2>&1
}

t0=$(date +%s)

# ---- logger -------------------------------------------------------------------------
largs=(--rows 10000 --row-group-rows 250 --seed 7)
"$sensor" "${largs[@]}" "$work/logger_host.parquet" >/dev/null 2>&1
if qemu_run "$fw/sensor_logger.elf" "$work/logger.console" "${largs[@]}" "$work/logger_fw.parquet" &&
    grep -q '^rows: 10000 written' "$work/logger.console" &&
    cmp -s "$work/logger_fw.parquet" "$work/logger_host.parquet"; then
    pass "sensor_logger.elf: 10000 rows, byte-identical to the host logger's ($(wc -c <"$work/logger_fw.parquet") bytes; stack $(stack_of "$work/logger.console") bytes)"
else
    fail "sensor_logger.elf: 10000 rows, not the host logger's file" "$(cat "$work/logger.console")"
fi
if qemu_run "$fw/sensor_logger.elf" "$work/logger_again.console" "${largs[@]}" --again \
    "$work/logger_again.parquet" && cmp -s "$work/logger_again.parquet" "$work/logger_host.parquet"; then
    pass "with a sink that says \"again\" every other write, the same bytes"
else
    fail "with a sink that says \"again\" every other write, another file" \
        "$(cat "$work/logger_again.console")"
fi
largs_rot=(--rows 10000 --row-group-rows 1500 --max-file-rows 4000 --seed 9)
mkdir -p "$work/rot_fw" "$work/rot_host"
if qemu_run "$fw/sensor_logger.elf" "$work/rot.console" "${largs_rot[@]}" "$work/rot_fw/log.parquet" &&
    "$sensor" "${largs_rot[@]}" "$work/rot_host/log.parquet" >/dev/null 2>&1 &&
    [ "$(grep -c '^file: ' "$work/rot.console")" -eq 3 ] &&
    cmp -s "$work/rot_fw/log.parquet" "$work/rot_host/log.parquet" &&
    cmp -s "$work/rot_fw/log.1.parquet" "$work/rot_host/log.1.parquet" &&
    cmp -s "$work/rot_fw/log.2.parquet" "$work/rot_host/log.2.parquet"; then
    pass "rotating at 4000 rows: three files, each byte-identical to the host logger's"
else
    fail "rotating at 4000 rows: the files differ from the host logger's" "$(cat "$work/rot.console")"
fi
"$sensor" --rows 6000 --row-group-rows 2000 --checkpoint-rows 500 --seed 5 "$work/cut.parquet" >/dev/null 2>&1
sz=$(stat -c %s "$work/cut.parquet")
head -c $((sz * 6 / 10)) "$work/cut.parquet" >"$work/res_fw.parquet"
cp "$work/res_fw.parquet" "$work/res_host.parquet"
largs_res=(--resume --rows 3000 --row-group-rows 2000 --checkpoint-rows 500 --seed 5)
if qemu_run "$fw/sensor_logger.elf" "$work/res.console" "${largs_res[@]}" "$work/res_fw.parquet" &&
    "$sensor" "${largs_res[@]}" "$work/res_host.parquet" >/dev/null 2>&1 &&
    cmp -s "$work/res_fw.parquet" "$work/res_host.parquet"; then
    pass "resuming a cut log for 3000 more rows: byte-identical to the host logger's"
else
    fail "resuming a cut log: the file differs from the host logger's" "$(cat "$work/res.console")"
fi
t1=$(date +%s)

# ---- reader ---------------------------------------------------------------------------
declare -A nomem=()
while read -r f _; do nomem[$f]=1; done < <(sed -e 's/#.*//' "$lists/nomem.txt" | awk 'NF')


n_same=0 n_err=0 n_nomem=0 n_skip=0 stack=0
while read -r file; do
    rel=${file#"$corpus"/}
    tag=$(tr '/' '_' <<<"$rel")
    if [ "$(tail -c 4 "$file" | tr -d '\0')" = PARE ]; then
        n_skip=$((n_skip + 1)) # encrypted footer: no keys on the target
        continue
    fi
    why=
    if [ -n "${nomem[$rel]:-}" ]; then
        unset "nomem[$rel]"
        qemu_run "$fw/fw_reader.elf" "$work/$tag.console" "$file" "$work/$tag.fw"
        frc=$?
        need=$(sed -n 's/^arena needed: \([0-9]*\) bytes/\1/p' "$work/$tag.console")
        if [ "$frc" -ne 1 ] || ! grep -q '^error: .*(arena too small)' "$work/$tag.console" ||
            [ -z "$need" ] || [ "$need" -le "$arena" ]; then
            fail "$rel: listed in nomem.txt, but fw_reader.elf exits $frc: $(grep -m1 '^error:' "$work/$tag.console")"
        elif compare "$rel" "$fw/fw_reader_big.elf" "$tag.big"; then
            n_nomem=$((n_nomem + 1))
            passed=$((passed + 1))
        else
            fail "$rel (fw_reader_big.elf): $why"
        fi
        continue
    fi
    if compare "$rel" "$fw/fw_reader.elf" "$tag"; then
        s=$(stack_of "$work/$tag.console")
        [ -n "$s" ] && [ "$s" -gt "$stack" ] && stack=$s
        if grep -q '^error:' "$work/$tag.console"; then
            n_err=$((n_err + 1))
        else
            n_same=$((n_same + 1))
        fi
        passed=$((passed + 1))
        rm -f "$work/$tag".*
    else
        fail "$rel: $why"
    fi
done < <(find "$corpus" -name '*.parquet' -type f | LC_ALL=C sort)
for rel in "${!nomem[@]}"; do
    fail "$rel: listed in nomem.txt but not in the corpus"
done
while read -r rel _; do
    tag=chunked_$(tr '/' '_' <<<"$rel")
    why=
    if compare "$rel" "$fw/fw_reader.elf" "$tag" "--chunk 13 --again"; then
        pass "$rel: --chunk 13 --again: the same as the host"
        rm -f "$work/$tag".*
    else
        fail "$rel: --chunk 13 --again: $why"
    fi
done < <(sed -e 's/#.*//' "$lists/chunked.txt" | awk 'NF')
t2=$(date +%s)

echo "riscv: reader: $n_same files byte-identical, $n_err with the host's error, $n_nomem over the arena (listed), $n_skip encrypted skipped; stack high-water $stack bytes"
echo "riscv: logger $((t1 - t0)) s, reader $((t2 - t1)) s"
echo "riscv: $passed passed, $failed failed"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
