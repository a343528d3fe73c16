# Sourced by test/firmware/run.sh (Cortex-M4) and test/cross/riscv_firmware.sh
# (RV32IMAC), after setting $label (the stage's name in its PASS and FAIL lines).

# pass MSG / fail MSG [DETAIL...]: a check passed or failed, counted
# shellcheck source=../checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/../checks.sh"

# stack_of CONSOLE: the stack an image says it used
stack_of() { sed -n 's/^stack: \([0-9]*\) bytes used.*/\1/p' "$1"; }

# compare REL IMAGE TAG [OPTIONS]: runs IMAGE on the corpus file REL (with
# the caller's qemu_run, into $work); 0 when it gives the host's output (the
# same bytes as `upq cat --raw`, and where the host fails, its error line),
# else 1 with $why set. Sourced by test/firmware/run.sh (Cortex-M4) and
# test/cross/riscv_firmware.sh (RV32IMAC); needs $upq, $corpus, $work and
# $timeout_s.
compare() {
    local rel=$1 image=$2 tag=$3 file=$corpus/$1 hrc frc herr ferr
    "$upq" cat --raw "$file" >"$work/$tag.host" 2>"$work/$tag.host.err"
    hrc=$?
    # shellcheck disable=SC2086
    qemu_run "$image" "$work/$tag.console" ${4:-} "$file" "$work/$tag.fw"
    frc=$?
    if [ "$frc" -eq 124 ]; then
        why="timed out after ${timeout_s}s"
        return 1
    fi
    if ! cmp -s "$work/$tag.host" "$work/$tag.fw"; then
        why="output differs from upq cat --raw (exit $frc, host $hrc): $(cmp "$work/$tag.host" "$work/$tag.fw" 2>&1 | head -1)"
        return 1
    fi
    if [ "$hrc" -eq 0 ]; then
        [ "$frc" -eq 0 ] && return 0
        why="exit $frc where the host reads it: $(grep '^error:' "$work/$tag.console")"
        return 1
    fi
    herr=$(head -n 1 "$work/$tag.host.err")
    herr="error: ${herr#"upq: $file: "}"
    ferr=$(grep -m1 '^error:' "$work/$tag.console")
    if [ "$frc" -ne 1 ] || [ "$herr" != "$ferr" ]; then
        why="the host says '$herr', the firmware (exit $frc) '$ferr'"
        return 1
    fi
    return 0
}

