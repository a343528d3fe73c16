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
# upq recover on the sensor logger's file cut at many points: the recovered
# rows are exactly a prefix of the full file's rows, ending at a checkpoint.
upq=${UPQ:-build/host/upq}
logger=${SENSOR_LOGGER:-build/host/sensor_logger}
echo "== upq recover on cut sensor logs"
if [ -x "$upq" ] && [ -x "$logger" ]; then
    rdir=$dir/recover
    mkdir -p "$rdir"
    "$logger" --rows 3000 --row-group-rows 250 "$rdir/full.parquet" >/dev/null 2>&1 || rc=1
    "$upq" cat --json "$rdir/full.parquet" >"$rdir/full.jsonl" || rc=1
    size=$(stat -c %s "$rdir/full.parquet")
    # the first checkpoint ends with the second "PAR1" of the file
    first=$(grep -boa PAR1 "$rdir/full.parquet" | sed -n 2p | cut -d: -f1)
    first=$((${first:-0} + 4))
    p=0 f=0
    for cut in 0 4 100 $((size / 7)) $((size / 3)) $((size / 2)) $((size * 2 / 3)) $((size - 9)) $((size - 1)) "$size"; do
        head -c "$cut" "$rdir/full.parquet" >"$rdir/cut.parquet"
        if "$upq" recover "$rdir/cut.parquet" >/dev/null 2>&1; then
            "$upq" cat --json "$rdir/cut.parquet" >"$rdir/cut.jsonl" 2>/dev/null
            n=$(wc -l <"$rdir/cut.jsonl")
            if [ $((n % 250)) -eq 0 ] && [ "$n" -gt 0 ] && head -n "$n" "$rdir/full.jsonl" | cmp -s - "$rdir/cut.jsonl"; then
                p=$((p + 1))
            else
                echo "FAIL recover at cut $cut: $n rows, not a checkpointed prefix"
                f=$((f + 1))
            fi
        elif [ "$cut" -lt "$first" ]; then
            p=$((p + 1)) # before the first checkpoint: nothing to recover
        else
            echo "FAIL recover at cut $cut found no checkpoint"
            f=$((f + 1))
        fi
    done
    echo "upq recover: $p passed, $f failed"
    tp=$((tp + p))
    tf=$((tf + f))
else
    echo "FAIL upq recover: $upq or $logger not built"
    tf=$((tf + 1))
fi
echo "# powerloss: $(( $(date +%s) - start )) s"
echo "$tp passed, $tf failed"
[ "$rc" -eq 0 ] && [ "$tf" -eq 0 ]
