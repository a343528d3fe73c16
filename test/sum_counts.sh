#!/usr/bin/env bash
# Runs several test commands as one stage and adds up their results.
#
#   test/sum_counts.sh 'COMMAND 1' 'COMMAND 2' ...
#
# Each argument is one shell command; its output is shown as it runs. Its
# counts are its last `N passed, N failed` line, else 1/0 by exit status;
# exit status 77 means skipped (no counts). Prints
# `total: N passed, N failed` with the sums, then exits 1 when anything
# failed, 77 when every command was skipped, else 0.
set -u
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
pass=0
fail=0
ran=0
for cmd in "$@"; do
    bash -c "$cmd" 2>&1 | tee "$tmp"
    rc=${PIPESTATUS[0]}
    [ "$rc" -eq 77 ] && continue
    ran=1
    summary=$(grep -E '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed' "$tmp" | tail -n 1)
    if [ -n "$summary" ]; then
        p=$(sed -E 's/^([A-Za-z_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$summary")
        f=$(sed -E 's/^([A-Za-z_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/' <<<"$summary")
    else
        p=0
        f=0
        [ "$rc" -eq 0 ] && p=1
    fi
    [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    pass=$((pass + p))
    fail=$((fail + f))
done
[ "$ran" -eq 1 ] || exit 77
echo "total: $pass passed, $fail failed"
[ "$fail" -eq 0 ] || exit 1
exit 0
