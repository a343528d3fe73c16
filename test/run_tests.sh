#!/usr/bin/env bash
# Runs test programs one after another, keeps going when one fails, and adds
# up their closing `N passed, N failed` lines.
#
#   test/run_tests.sh [--label NAME] [--logdir DIR] [--result FILE]
#                     [--timeout SECONDS] [--runner 'CMD ARGS'] [--] PROGRAM...
#
# --runner prefixes every program with a command (an emulator such as
# `qemu-aarch64 -L /usr/aarch64-linux-gnu` for programs built for another
# target); its words are split on spaces.
# Each program runs from the current directory with its output saved in
# LOGDIR/<name>.log. A program counts as one extra failure when it exits
# non-zero while reporting no failure (a crash, a sanitizer report), when it
# prints no summary line, times out, or was not built (missing file: a test
# that did not compile). Prints one line per program, the output of failing
# ones, and a grand total; writes "PASSED FAILED ok SECONDS" to --result; exits 1 when
# anything failed.
set -u

label=tests
logdir=
result=
timeout_s=${TEST_TIMEOUT:-600}
runner=
while [ $# -gt 0 ]; do
    case "$1" in
    --label) label=$2; shift 2 ;;
    --logdir) logdir=$2; shift 2 ;;
    --result) result=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --runner) runner=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "run_tests.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ -n "$logdir" ] || logdir=$(mktemp -d)
mkdir -p "$logdir"

t_start=$(date +%s)
total_pass=0
total_fail=0
nprog=0
nbad=0

# Prints the interesting part of a failing program's log.
# Sanitizer shadow-byte maps are left out (they are in the log file).
show_log() {
    local log=$1 n
    n=$(wc -l <"$log")
    if [ "$n" -le 80 ]; then
        sed -e '/^Shadow bytes around the buggy address/,/==ABORTING/{/==ABORTING/!d}' \
            -e 's/^/    | /' "$log"
    else
        echo "    | ... ($n lines; FAIL lines and the last 25 lines follow; full log: $log)"
        grep -n -m 40 -E '^(FAIL|not ok)|ERROR|runtime error|Sanitizer' "$log" | sed 's/^/    | /'
        echo "    | ..."
        tail -n 25 "$log" | sed 's/^/    | /'
    fi
}

echo "== $label: $# program(s)"
for prog in "$@"; do
    nprog=$((nprog + 1))
    name=$(basename "$prog")
    log="$logdir/$name.log"
    if [ ! -x "$prog" ]; then
        echo "$label: FAIL $name: not built (see the compiler errors above)"
        total_fail=$((total_fail + 1))
        nbad=$((nbad + 1))
        continue
    fi
    start=$(date +%s)
    # (the braces keep bash's own "Aborted" job message out of the output)
    # shellcheck disable=SC2086 # the runner is a command and its arguments
    { timeout --kill-after=10 "$timeout_s" $runner "$prog" >"$log" 2>&1 </dev/null; } 2>/dev/null
    rc=$?
    secs=$(( $(date +%s) - start ))
    summary=$(grep -E '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    p=0
    f=0
    note=
    if [ -n "$summary" ]; then
        p=$(sed -E 's/^([A-Za-z_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$summary")
        f=$(sed -E 's/^([A-Za-z_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/' <<<"$summary")
    else
        note=" (no summary line)"
    fi
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        note="$note (timed out after ${timeout_s}s)"
        f=$((f + 1))
    elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        note="$note (exit status $rc)"
        f=$((f + 1))
    elif [ "$rc" -eq 0 ] && [ -z "$summary" ]; then
        f=$((f + 1))
    elif [ "$rc" -eq 0 ] && [ "$f" -ne 0 ]; then
        note="$note (but exit status 0)"
    fi
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    if [ "$f" -eq 0 ]; then
        printf '%s: ok   %-32s %s passed, %s failed  %ss\n' "$label" "$name" "$p" "$f" "$secs"
    else
        nbad=$((nbad + 1))
        printf '%s: FAIL %-32s %s passed, %s failed%s  %ss\n' "$label" "$name" "$p" "$f" "$note" "$secs"
        show_log "$log"
    fi
done

[ "$nprog" -gt 0 ] || echo "$label: (no test programs)"
echo "== $label: $nprog program(s), $nbad failing"
echo "$label: $total_pass passed, $total_fail failed"
[ -z "$result" ] || echo "$total_pass $total_fail ok $(($(date +%s) - t_start))" >"$result"
[ "$total_fail" -eq 0 ]
