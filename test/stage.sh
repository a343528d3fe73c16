#!/usr/bin/env bash
# Runs one `make check` stage command, shows its output as it runs, and
# records its outcome for test/check_report.sh.
#
#   test/stage.sh RESULT_FILE LABEL -- COMMAND...
#
# RESULT_FILE gets one line "PASSED FAILED STATUS SECONDS": the command's last
# `N passed, N failed` line when it printed one, else 1/0 by exit status.
# A command that fails while its counts say nothing failed counts one extra
# failure. Exit status 77 means "skipped" (the command says why), unless
# UPQ_STRICT=1 (set by .ci/run, which installs everything every stage needs):
# then a skipped stage is a failure, so nothing is left out unnoticed. The
# stage itself always succeeds, so make goes on with the other stages.
set -u
res=$1
label=$2
shift 2
[ "${1:-}" = "--" ] && shift
mkdir -p "$(dirname "$res")"
echo "0 1 fail" >"$res" # stays if the stage is interrupted
log="${res%.*}.log"

t0=$(date +%s)
"$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
secs=$(($(date +%s) - t0))

if [ "$rc" -eq 77 ]; then
    if [ "${UPQ_STRICT:-0}" = 1 ]; then
        echo "0 1 fail" >"$res"
        echo "$label: FAILED (skipped, and UPQ_STRICT=1 allows no skips; log: $log)"
    else
        echo "0 0 skip" >"$res"
    fi
    exit 0
fi
summary=$(grep -E '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
if [ -n "$summary" ]; then
    p=$(sed -E 's/^([A-Za-z_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$summary")
    f=$(sed -E 's/^([A-Za-z_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/' <<<"$summary")
else
    p=0
    f=0
    [ "$rc" -eq 0 ] && p=1
fi
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=$((f + 1))
fi
status=ok
[ "$f" -eq 0 ] || status=fail
echo "$p $f $status $secs" >"$res"
[ "$status" = ok ] || echo "$label: FAILED (exit status $rc; log: $log)"
exit 0
