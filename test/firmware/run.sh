#!/usr/bin/env bash
# The firmware images under qemu (mps2-an386, Cortex-M4F) against the host,
# run by `make check` (stage firmware-check; examples/firmware/firmware.mk
# passes the inputs in the environment):
#
#  logger  sensor_logger.elf logs 10000 rows in 250-row row groups through
#          semihosting; the file is byte-identical to the host logger's from
#          the same seed (also through a sink that says "again" every other
#          write), and DuckDB reads exactly the generated rows
#          (test/interop/firmware_logger.mjs re-implements the generator);
#          sensor_logger_fatfs.elf writes the same file through FatFs on a
#          RAM disk (--fs fatfs), as the host logger does;
#          rotating at a row limit gives the host's files, and so does
#          resuming a log cut short;
#  reader  fw_reader.elf (256 KB arena) reads every corpus file: its output
#          must be byte-identical to `upq cat --raw` on the host and, where
#          the host fails, its error line the same as upq's; the files of
#          nomem.txt must fail with UPQ_ERR_NOMEM and a needed size above the
#          arena, then read as on the host with fw_reader_big.elf (3 MB);
#          the files of chunked.txt again with 13-byte reads that say "again"
#          every other call;
#  lazy    fw_reader_32k.elf (32 KB arena) with row-group metadata on demand
#          reads 1,000 and 100,000 one-row row groups x 11 columns as the host
#          does, with the same arena high water for both.
#
# Both report their stack high-water mark (painted at reset); the largest of
# each must be within the stack of the STM32F4 budget map (FW_STACK_BUDGET,
# whose images `make` has linked before this runs). One line per check
# (PASS/FAIL), then "N passed, N failed".
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fw=${FW_DIR:?FW_DIR: the firmware build directory}
qemu=${QEMU_ARM:-qemu-system-arm}
upq=${UPQ:?UPQ: the host upq tool}
sensor=${SENSOR:?SENSOR: the host sensor logger}
node=${NODE:-node}
arena=${FW_READER_ARENA:?}
corpus=${PARQUET_TESTING_DIR:?}
timeout_s=${FW_TIMEOUT:-60}
work=$fw/check
rm -rf "$work"
mkdir -p "$work"

# pass, fail, stack_of and compare (test/firmware/compare.sh)
label=firmware
# shellcheck source=compare.sh
source "$here/compare.sh"

if ! command -v "$qemu" >/dev/null 2>&1; then
    echo "SKIP firmware: $qemu is not installed (.ci/run installs qemu-system-arm)"
    exit 77
fi

# qemu_run IMAGE CONSOLE ARGS...: the image with ARGS as its semihosting
# command line; console output to CONSOLE; returns the image's exit status
# (124 on timeout).
qemu_run() {
    local image=$1 console=$2
    shift 2
    timeout "$timeout_s" "$qemu" -M mps2-an386 -nographic -monitor none \
        -semihosting-config enable=on,target=native -kernel "$image" -append "$*" \
        </dev/null >"$console" 2>&1
}


t0=$(date +%s)

# ---- logger -----------------------------------------------------------------------------
largs=(--rows 10000 --row-group-rows 250 --seed 7)
qemu_run "$fw/sensor_logger.elf" "$work/logger.console" "${largs[@]}" "$work/logger_fw.parquet"
rc=$?
logger_stack=$(stack_of "$work/logger.console")
if [ "$rc" -ne 0 ]; then
    mapfile -t lines <"$work/logger.console"
    fail "sensor_logger.elf exits $rc" "${lines[@]}"
elif ! grep -q '^rows: 10000 written' "$work/logger.console" || [ -z "$logger_stack" ]; then
    mapfile -t lines <"$work/logger.console"
    fail "sensor_logger.elf does not report its rows and stack" "${lines[@]}"
else
    pass "sensor_logger.elf logs 10000 rows ($(sed -n 's/^arena: //p' "$work/logger.console"); stack $logger_stack bytes)"
fi
if "$sensor" "${largs[@]}" "$work/logger_host.parquet" >/dev/null 2>&1 &&
    cmp -s "$work/logger_fw.parquet" "$work/logger_host.parquet"; then
    pass "the firmware's file is byte-identical to the host logger's ($(wc -c <"$work/logger_fw.parquet") bytes)"
else
    fail "the firmware's file differs from the host logger's (same seed)"
fi
if qemu_run "$fw/sensor_logger.elf" "$work/logger_again.console" "${largs[@]}" --again \
    "$work/logger_again.parquet" && cmp -s "$work/logger_again.parquet" "$work/logger_host.parquet"; then
    pass "with a sink that says \"again\" every other write, the same bytes"
else
    fail "with a sink that says \"again\" every other write, sensor_logger.elf writes another file" \
        "$(cat "$work/logger_again.console")"
fi
if out=$("$node" "$here/../interop/firmware_logger.mjs" "$work/logger_fw.parquet" "${largs[@]}" 2>&1); then
    pass "DuckDB reads the firmware's file: $(grep '^ok' <<<"$out" | sed 's/^ok //' | paste -sd ';' -)"
else
    mapfile -t lines <<<"$out"
    fail "DuckDB on the firmware's file" "${lines[@]}"
fi
# FatFs on the board: the same log through FatFs and port/adapters/fatfs on a
# RAM disk (sensor_logger_fatfs.elf --fs fatfs), copied out over semihosting;
# the same bytes as the host logger's through POSIX files and through FatFs
if [ -e "$fw/sensor_logger_fatfs.elf" ]; then
    if qemu_run "$fw/sensor_logger_fatfs.elf" "$work/logger_fat.console" "${largs[@]}" --fs fatfs \
        "$work/logger_fat.parquet" && cmp -s "$work/logger_fat.parquet" "$work/logger_host.parquet" &&
        "$sensor" "${largs[@]}" --fs fatfs "$work/logger_host_fat.parquet" >/dev/null 2>&1 &&
        cmp -s "$work/logger_fat.parquet" "$work/logger_host_fat.parquet"; then
        pass "through FatFs on the board (RAM disk; stack $(stack_of "$work/logger_fat.console") bytes): byte-identical to the host logger's (POSIX and --fs fatfs)"
    else
        fail "through FatFs on the board, sensor_logger_fatfs.elf writes another file than the host logger" \
            "$(cat "$work/logger_fat.console")"
    fi
else
    fail "sensor_logger_fatfs.elf was not built (FATFS_DIR: FatFs's source/ folder)"
fi
# rotation: three files of at most 4000 rows, each byte-identical to the host's
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
    fail "rotating at 4000 rows: the firmware's files differ from the host logger's" \
        "$(cat "$work/rot.console")"
fi
# resume: a log cut short (its first 60 %, as a card keeps what was synced),
# resumed for 3000 more rows by both: the same bytes
"$sensor" --rows 6000 --row-group-rows 2000 --checkpoint-rows 500 --seed 5 "$work/cut.parquet" >/dev/null 2>&1
sz=$(stat -c %s "$work/cut.parquet")
head -c $((sz * 6 / 10)) "$work/cut.parquet" >"$work/res_fw.parquet"
cp "$work/res_fw.parquet" "$work/res_host.parquet"
largs_res=(--resume --rows 3000 --row-group-rows 2000 --checkpoint-rows 500 --seed 5)
if qemu_run "$fw/sensor_logger.elf" "$work/res.console" "${largs_res[@]}" "$work/res_fw.parquet" &&
    "$sensor" "${largs_res[@]}" "$work/res_host.parquet" >"$work/res_host.out" 2>&1 &&
    cmp -s "$work/res_fw.parquet" "$work/res_host.parquet" &&
    "$upq" meta "$work/res_fw.parquet" >/dev/null 2>&1; then
    pass "resuming a cut log for 3000 more rows: byte-identical to the host logger's ($(sed -n 's/^rows: //p' "$work/res.console"))"
else
    fail "resuming a cut log: the firmware's file differs from the host logger's or does not read" \
        "$(cat "$work/res.console")" "$(cat "$work/res_host.out")"
fi
t1=$(date +%s)

# ---- reader -------------------------------------------------------------------------------
declare -A nomem=()
while read -r f _; do nomem[$f]=1; done < <(sed -e 's/#.*//' "$here/nomem.txt" | awk 'NF')


n_same=0 n_err=0 n_nomem=0 n_skip=0
reader_stack=0 reader_stack_file=
while read -r file; do
    rel=${file#"$corpus"/}
    tag=$(tr '/' '_' <<<"$rel")
    if [ "$(tail -c 4 "$file" | tr -d '\0')" = PARE ]; then
        echo "SKIP firmware: $rel: encrypted footer (no keys on the target)"
        n_skip=$((n_skip + 1))
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
            fail "$rel: listed in nomem.txt, but fw_reader.elf exits $frc: $(grep -m1 '^error:' "$work/$tag.console")" \
                "(if it fits now, take it off the list)"
        elif compare "$rel" "$fw/fw_reader_big.elf" "$tag.big"; then
            pass "$rel: UPQ_ERR_NOMEM in $arena bytes, needs $need; fw_reader_big.elf reads it as the host"
            n_nomem=$((n_nomem + 1))
        else
            fail "$rel (fw_reader_big.elf): $why"
        fi
        continue
    fi
    if compare "$rel" "$fw/fw_reader.elf" "$tag"; then
        s=$(stack_of "$work/$tag.console")
        if [ -n "$s" ] && [ "$s" -gt "$reader_stack" ]; then
            reader_stack=$s
            reader_stack_file=$rel
        fi
        if grep -q '^error:' "$work/$tag.console"; then
            pass "$rel: same error as the host: $(grep -m1 '^error:' "$work/$tag.console" | cut -c8-)"
            n_err=$((n_err + 1))
        else
            pass "$rel: byte-identical ($(sed -n 's/^rows: //p' "$work/$tag.console") rows, arena high water $(sed -n 's/.*high water //p' "$work/$tag.console"))"
            n_same=$((n_same + 1))
        fi
        rm -f "$work/$tag".*
    else
        if grep -q '(arena too small)' "$work/$tag.console" 2>/dev/null; then
            why="$why (UPQ_ERR_NOMEM: $(sed -n 's/^arena needed: //p' "$work/$tag.console"); list it in nomem.txt if that is expected)"
        fi
        fail "$rel: $why"
    fi
done < <(find "$corpus" -name '*.parquet' -type f | LC_ALL=C sort)
for rel in "${!nomem[@]}"; do
    fail "$rel: listed in nomem.txt but not in the corpus"
done

# Resumable I/O on the target: short reads and "again" change nothing.
while read -r rel _; do
    tag=chunked_$(tr '/' '_' <<<"$rel")
    why=
    if [ ! -f "$corpus/$rel" ]; then
        fail "$rel: listed in chunked.txt but not in the corpus"
    elif compare "$rel" "$fw/fw_reader.elf" "$tag" "--chunk 13 --again"; then
        pass "$rel: --chunk 13 --again: the same as the host"
        rm -f "$work/$tag".*
    else
        fail "$rel: --chunk 13 --again: $why"
    fi
done < <(sed -e 's/#.*//' "$here/chunked.txt" | awk 'NF')
t2=$(date +%s)

# ---- many row groups in 32 KB ----------------------------------------------------------
# fw_reader_32k.elf --lazy --batch 1 (row-group metadata on demand, one value
# per column at a time) reads 1,000 and 100,000 one-row row groups x 11
# columns (test/lazy/make_rg_file.sh; the second 220 MB with a 101 MB
# footer, about 90 s of CPU under qemu) exactly as `upq cat --raw` prints
# them, with the same arena high water for both.
t3=$(date +%s)
lazy_hw=
for n in 1000 100000; do
    f=$work/rg$n.parquet
    if ! bash "$here/../lazy/make_rg_file.sh" "$upq" "$n" "$f" >"$work/rg$n.write" 2>&1; then
        fail "make_rg_file.sh $n" "$(tail -n 2 "$work/rg$n.write")"
        continue
    fi
    "$upq" cat --raw "$f" >"$work/rg$n.host" 2>&1
    timeout_s=1200 qemu_run "$fw/fw_reader_32k.elf" "$work/rg$n.console" --lazy --batch 1 "$f" "$work/rg$n.fw"
    rc=$?
    hw=$(sed -n 's/^arena: 32768 bytes, high water \([0-9]*\)$/\1/p' "$work/rg$n.console")
    if [ "$rc" -eq 0 ] && [ -n "$hw" ] && cmp -s "$work/rg$n.fw" "$work/rg$n.host"; then
        pass "fw_reader_32k.elf --lazy: $n row groups x 11 columns in a 32 KB arena, as upq cat --raw (high water $hw bytes)"
        lazy_hw="$lazy_hw $hw"
    else
        mapfile -t lines <"$work/rg$n.console"
        fail "fw_reader_32k.elf --lazy: $n row groups x 11 columns (exit $rc)" "${lines[@]}"
    fi
    rm -f "$work/rg$n".*
done
read -r hw1 hw2 <<<"$lazy_hw"
if [ -n "${hw2:-}" ] && [ "$hw1" -eq "$hw2" ]; then
    pass "the arena high water does not grow with row groups: $hw1 bytes at 1,000 and 100,000"
else
    fail "arena high water at 1,000 and 100,000 row groups: '${hw1:-}' '${hw2:-}' (must be equal)"
fi
t4=$(date +%s)

# The budget part (linker/stm32f4.ld) has FW_STACK_BUDGET bytes of stack.
budget=${FW_STACK_BUDGET:-}
if [ -n "$budget" ]; then
    for m in "sensor_logger.elf:${logger_stack:-}" "fw_reader.elf:$reader_stack"; do
        img=${m%%:*} used=${m#*:}
        if [ -n "$used" ] && [ "$used" -gt 0 ] && [ "$used" -le "$budget" ]; then
            pass "$img: stack high-water $used bytes, within the $budget bytes of the STM32F4 budget"
        else
            fail "$img: stack high-water '${used}' bytes, not within the $budget bytes of the STM32F4 budget"
        fi
    done
fi
if [ -n "${TSIZE:-}" ]; then
    echo "firmware: image sizes (arm-none-eabi-size):"
    "$TSIZE" "$fw"/*.elf "$fw"/stm32f4/*.elf 2>/dev/null | sed "s|$fw/||; s|^|    |"
fi

echo "firmware: logger stack high-water $logger_stack bytes; reader stack high-water $reader_stack bytes ($reader_stack_file)"
echo "firmware: reader: $n_same files byte-identical, $n_err with the host's error, $n_nomem over the arena (listed), $n_skip encrypted skipped"
echo "firmware: logger $((t1 - t0)) s, reader $((t2 - t1)) s, many row groups $((t4 - t3)) s"
echo "firmware: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
