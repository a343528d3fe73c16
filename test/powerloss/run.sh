#!/usr/bin/env bash
# The power-loss stage (make check-powerloss), in three parts:
#
#  1. test_powerloss --full: logging runs in checkpoint mode on the SD card
#     model, the power cut at every write call, byte and sync (sampled in
#     the long scenarios; --full adds the 864,000-row day), each cut
#     recovered in place or resumed and read back against the generator.
#  2. upq recover on sensor logs cut at many byte offsets: the sensor logger
#     (checkpoint mode) writes a log; copies of it cut with `head -c` are
#     finished by `upq recover`, and `upq cat --json` must give a prefix of
#     the full log's rows ending at a checkpoint (0 rows, a multiple of
#     --checkpoint-rows, or a row group's end). A byte-prefix cut often
#     recovers to 0 rows, or to the row groups before the cut: a
#     checkpoint counts only when every page it covers is intact, and a row
#     group's later columns lie in regions further on. So the checks are:
#     a prefix, at a checkpoint, never fewer rows for a longer cut, a cut
#     inside the file's first journal record refused with nothing written,
#     the uncut log "closed already" with every row. Recovering a recovered
#     file again should leave it as it is ("closed already"): one line for
#     all of them.
#  3. DuckDB, arrow-rs and hyparquet read a sample of the recovered files
#     (test/interop/powerloss_readers.mjs) and must give the rows
#     `upq cat --json` gives.
#
# Every check prints `ok ...` or `FAIL ...`; the last line adds up the
# parts as `N passed, N failed`.
#
#   test/powerloss/run.sh PROGRAM WORK_DIR NODE
#
# Environment: UPQ (default build/host/upq), SENSOR_LOGGER (default
# build/host/sensor_logger), POWERLOSS_MODE (full, the default and what CI
# runs: about 3.5 minutes of part 1 on one core; default: without the
# long scenarios, about 2; quick: sampled cuts).
set -u
prog=$1
dir=$2
node=${3:-node}
here=$(cd "$(dirname "$0")" && pwd)
upq=${UPQ:-build/host/upq}
logger=${SENSOR_LOGGER:-build/host/sensor_logger}
mode=${POWERLOSS_MODE:-full}
tp=0
tf=0
rc=0
# adds the last `N passed, N failed` line of a log (none: one failure)
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
ok() {
    [ -n "${1:-}" ] && echo "ok $1"
    tp=$((tp + 1))
}
fail() {
    echo "FAIL $1"
    tf=$((tf + 1))
}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)

# ---- 1. the C program ----------------------------------------------------------
case $mode in
full) flags=--full ;;
quick) flags=--quick ;;
*) flags= ;;
esac
if [ -x "$prog" ]; then
    echo "== $prog $flags"
    t0=$(date +%s)
    "$prog" $flags >"$log" 2>&1 || rc=1
    grep -E '^(FAIL|#)' "$log"
    grep -cE '^ok' "$log" | sed 's/^/# ok lines: /'
    add "$log"
    echo "# test_powerloss: $(($(date +%s) - t0)) s"
else
    fail "test_powerloss: $prog was not built"
fi

# ---- 2. upq recover on cut sensor logs --------------------------------------------

rdir=$dir/recover
sdir=$dir/samples
rm -rf "$rdir" "$sdir"
mkdir -p "$rdir" "$sdir"
twice_n=0
twice_changed=0
twice_eg=

# The rows a recovered file may end at: 0, multiples of CKPT, row group ends.
at_checkpoint() { # N CKPT ENDS...
    local n=$1 ck=$2 e
    shift 2
    [ "$n" -eq 0 ] && return 0
    [ "$ck" -gt 0 ] && [ $((n % ck)) -eq 0 ] && return 0
    for e in "$@"; do
        [ "$n" -eq "$e" ] && return 0
    done
    return 1
}

# One log: NAME CKPT_ROWS CUTS then the logger's options.
cut_log() {
    local name=$1 ck=$2 ncuts=$3
    shift 3
    local full=$rdir/$name.parquet cut=$rdir/$name.cut.parquet
    local size first rows ends t off offs n prev=-1 p=0 f=0 out kept="" bad
    echo "== $name: sensor_logger $*, cut at $ncuts+ byte offsets, upq recover"
    if ! "$logger" "$@" "$full" >"$log" 2>&1; then
        fail "$name: sensor_logger $*: $(tail -n 2 "$log" | tr '\n' ' ')"
        return
    fi
    "$upq" cat --json "$full" >"$rdir/$name.jsonl" 2>"$log" || {
        fail "$name: upq cat --json of the full log: $(tail -n 2 "$log" | tr '\n' ' ')"
        return
    }
    rows=$(wc -l <"$rdir/$name.jsonl")
    size=$(stat -c %s "$full")
    # the file's first journal record (FILE) ends at 4 + its length
    if [ "$(head -c 8 "$full" | tail -c 4)" != UPQJ ]; then
        fail "$name: no journal record after PAR1: not a checkpoint-mode file"
        return
    fi
    first=$((4 + $(od -An -t u4 -j 8 -N 4 "$full" | tr -d ' ')))
    # row group ends of the full log
    ends=$("$upq" meta "$full" | awk '/^row_group [0-9]+:/ {g = 1; next} g && /^  num_rows:/ {t += $2; print t; g = 0}' | tr '\n' ' ')
    cp "$full" "$sdir/$name-full.parquet"
    cp "$rdir/$name.jsonl" "$sdir/$name-full.jsonl"
    offs=$( {
        echo 0; echo $((first - 1)); echo "$first"; echo $((first + 1))
        for t in $(seq 1 "$ncuts"); do echo $((size * t / (ncuts + 1))); done
        for t in 1 4 8 100 1000; do [ "$size" -gt "$t" ] && echo $((size - t)); done
        echo "$size"
    } | awk -v s="$size" '$1 >= 0 && $1 <= s' | sort -n | uniq)
    for off in $offs; do
        head -c "$off" "$full" >"$cut"
        out=$("$upq" recover "$cut" 2>&1)
        t=$?
        if [ "$off" -lt "$first" ]; then
            if [ $t -eq 1 ] && grep -q "cannot recover" <<<"$out" && [ "$(stat -c %s "$cut")" -eq "$off" ]; then
                p=$((p + 1))
            else
                echo "FAIL $name: cut at $off (inside the first record, which ends at $first): upq recover exit $t: $out"
                f=$((f + 1))
            fi
            continue
        fi
        if [ $t -ne 0 ]; then
            echo "FAIL $name: cut at $off of $size: upq recover exit $t: $out"
            f=$((f + 1))
            continue
        fi
        if ! "$upq" cat --json "$cut" >"$rdir/cut.jsonl" 2>"$log"; then
            echo "FAIL $name: cut at $off: upq cat --json of the recovered file: $(tail -n 1 "$log")"
            f=$((f + 1))
            continue
        fi
        n=$(wc -l <"$rdir/cut.jsonl")
        bad=
        if [ "$off" -eq "$size" ]; then
            grep -q "closed already" <<<"$out" || bad="the uncut log is not \"closed already\": $out"
            [ "$n" -eq "$rows" ] || bad="the uncut log reads $n rows of $rows"
        fi
        grep -q ": $n rows in " <<<"$out" || bad="upq recover says \"$out\", upq cat reads $n rows"
        head -n "$n" "$rdir/$name.jsonl" | cmp -s - "$rdir/cut.jsonl" || bad="its $n rows are not the first $n of the log"
        # shellcheck disable=SC2086
        at_checkpoint "$n" "$ck" $ends || bad="$n rows, not at a checkpoint (every $ck rows; row group ends $ends)"
        [ "$n" -ge "$prev" ] || bad="$n rows, a shorter cut kept $prev"
        if [ -n "$bad" ]; then
            echo "FAIL $name: cut at $off of $size: $bad"
            f=$((f + 1))
            continue
        fi
        p=$((p + 1))
        # a sample for the readers: the first cut that keeps each row count
        if [ "$n" -ne "$prev" ] && [ "$off" -ne "$size" ]; then
            cp "$cut" "$sdir/$name-cut$off.parquet"
            cp "$rdir/cut.jsonl" "$sdir/$name-cut$off.jsonl"
            kept="$kept $n"
        fi
        prev=$n
        # recovered again: should be "closed already" and unchanged
        if [ "$off" -ne "$size" ]; then
            cp "$cut" "$rdir/again.parquet"
            out=$("$upq" recover "$rdir/again.parquet" 2>&1)
            twice_n=$((twice_n + 1))
            if ! grep -q "closed already" <<<"$out" || ! cmp -s "$cut" "$rdir/again.parquet"; then
                twice_changed=$((twice_changed + 1))
                [ -z "$twice_eg" ] && twice_eg="$name cut at $off ($n rows): $out"
            fi
            if ! "$upq" cat --json "$rdir/again.parquet" 2>/dev/null | cmp -s - "$rdir/cut.jsonl"; then
                echo "FAIL $name: cut at $off: recovered again, the rows differ"
                f=$((f + 1))
            fi
        fi
    done
    echo "$name: $rows rows, $size bytes, row group ends $ends; cuts keep${kept:- no rows}"
    echo "$name: $p passed, $f failed"
    tp=$((tp + p))
    tf=$((tf + f))
    rm -f "$cut" "$rdir/cut.jsonl" "$rdir/again.parquet"
}

if [ -x "$upq" ] && [ -x "$logger" ]; then
    # row groups of 500 rows, a checkpoint every 100
    cut_log rg500-ckpt100 100 60 --rows 3000 --row-group-rows 500 --checkpoint-rows 100
    # small pages, a sink that says "again", another device and seed
    cut_log rg300-ckpt50-p512-again 50 60 --rows 2000 --row-group-rows 300 --checkpoint-rows 50 \
        --page-size 512 --again --seed 7 --device dev-b
    # checkpoints only at row group ends
    cut_log rg400-ends-only 0 40 --rows 2000 --row-group-rows 400 --checkpoint-rows 0 --seed 11
    # the logger's own settings (64K-row row groups, a checkpoint every 600
    # rows): one row group, so a byte-prefix cut keeps no rows
    cut_log logger-defaults 600 30 --rows 6000 --seed 3
    if [ "$twice_n" -gt 0 ]; then
        if [ "$twice_changed" -eq 0 ]; then
            ok "upq recover twice: $twice_n recovered files are \"closed already\" and unchanged when recovered again"
        else
            fail "upq recover twice: $twice_changed of $twice_n recovered files are finished again instead of \"closed already\" (the same rows, other bytes), e.g. $twice_eg"
        fi
    fi
else
    fail "upq recover on cut sensor logs: $upq or $logger not built"
fi

# ---- 3. the readers on a sample -------------------------------------------------------

echo "== DuckDB, arrow-rs and hyparquet read $(find "$sdir" -name '*.parquet' | wc -l) recovered files"
"$node" "$here/../interop/powerloss_readers.mjs" --upq "$upq" "$sdir" >"$log" 2>&1 || rc=1
cat "$log"
add "$log"

echo "# powerloss: $(($(date +%s) - start)) s"
echo "$tp passed, $tf failed"
[ "$rc" -eq 0 ] && [ "$tf" -eq 0 ]
