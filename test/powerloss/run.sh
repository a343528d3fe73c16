#!/usr/bin/env bash
# The power-loss stage: every cut of every scenario (test_powerloss --full),
# then a sample of recovered files read by DuckDB. Adds up both closing
# `N passed, N failed` lines into one.
#
#   test/powerloss/run.sh PROGRAM SAMPLE_DIR NODE
set -u
prog=$1
dir=$2
node=${3:-node}
here=$(cd "$(dirname "$0")" && pwd)
tp=0
tf=0
rc=0
add() {
    local line p f
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
    if [ -z "$line" ]; then
        tf=$((tf + 1))
        return
    fi
    p=${line%% passed*}
    f=${line#*passed, }
    f=${f%% failed*}
    tp=$((tp + p))
    tf=$((tf + f))
}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ ! -x "$prog" ]; then
    echo "powerloss: $prog was not built"
    echo "0 passed, 1 failed"
    exit 1
fi
start=$(date +%s)
echo "== $prog --full"
"$prog" --full >"$log" 2>&1 || rc=1
grep -E '^(ok|FAIL|#)' "$log"
add "$log"
echo "== $prog --samples $dir, read by DuckDB"
"$prog" --samples "$dir" >"$log" 2>&1 || rc=1
grep -E '^FAIL' "$log" || true
add "$log"
"$node" "$here/../interop/powerloss_duckdb.mjs" "$dir" >"$log" 2>&1 || rc=1
cat "$log"
add "$log"
echo "# powerloss: $(( $(date +%s) - start )) s"
echo "$tp passed, $tf failed"
[ "$rc" -eq 0 ] && [ "$tf" -eq 0 ]
