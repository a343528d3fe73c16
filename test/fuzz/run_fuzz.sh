#!/usr/bin/env bash
# Builds and runs libFuzzer targets for a fixed time each.
#
#   test/fuzz/run_fuzz.sh SECONDS HOST_LIB FUZZ_DIR NAME[:SYMBOL...]...
#
# For each NAME: skipped (with the reason) while HOST_LIB lacks one of the
# SYMBOLs the target needs; otherwise `$MAKE FUZZ_DIR/fuzz_NAME
# FUZZ_DIR/seeds_NAME.stamp`, then the target runs over its seeds (a
# regression run) and on into FUZZ_DIR/corpus_NAME for SECONDS. Findings are
# written to FUZZ_DIR/artifacts/. Ends with `fuzz: N passed, N failed`;
# exits 1 on any finding or build failure, 77 when every target was skipped.
# FUZZ_CAP_<NAME>=S (environment) runs target NAME at most S seconds;
# FUZZ_MAX_LEN_<NAME>=B gives it -max_len=B. Each target's throughput is
# printed: `fuzz_NAME: N executions in S s: X/s, Y per CPU second` (the
# second from /usr/bin/time when it is there: on a busy machine the first
# says more about the machine), with a note when the rate per CPU second
# is under 1,000 (a note, not a failure).
set -u
secs=$1
lib=$2
dir=$3
shift 3
make_cmd=${MAKE:-make}
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

ran=0
fail=0
for spec in "$@"; do
    name=${spec%%:*}
    syms=
    [ "$spec" = "$name" ] || syms=${spec#*:}
    missing=
    for s in ${syms//:/ }; do
        nm -g --defined-only "$lib" 2>/dev/null | grep -qw -- "$s" || missing="$missing $s"
    done
    if [ -n "$missing" ]; then
        echo "fuzz_$name: skipped: the library does not define$missing yet"
        continue
    fi
    ran=$((ran + 1))
    if ! $make_cmd --no-print-directory "$dir/fuzz_$name" "$dir/seeds_$name.stamp"; then
        echo "fuzz_$name: FAILED to build"
        fail=$((fail + 1))
        continue
    fi
    mkdir -p "$dir/corpus_$name" "$dir/artifacts"
    log="$dir/fuzz_$name.log"
    # -timeout: a hang never returns, but a large seed with tens of thousands
    # of pages takes a few seconds under coverage instrumentation, and the
    # parallel stages of make check can slow a run down several times more.
    t=$secs
    cap_var="FUZZ_CAP_$name"
    cap=${!cap_var:-}
    if [ -n "$cap" ] && [ "$cap" -lt "$t" ]; then
        t=$cap
    fi
    len_var="FUZZ_MAX_LEN_$name"
    max_len=()
    [ -z "${!len_var:-}" ] || max_len=(-max_len="${!len_var}")
    echo "fuzz_$name: running for ${t}s${max_len:+ (${max_len[0]})} (log: $log)"
    start=$(date +%s.%N)
    timer=()
    [ -x /usr/bin/time ] && timer=(/usr/bin/time -o "$log.cpu" -f '%U %S')
    rm -f "$log.cpu"
    if "${timer[@]}" "$dir/fuzz_$name" -max_total_time="$t" -timeout="${FUZZ_UNIT_TIMEOUT:-30}" -rss_limit_mb=2048 \
        "${max_len[@]}" -print_final_stats=1 -artifact_prefix="$dir/artifacts/fuzz_$name-" \
        "$dir/corpus_$name" "$dir/seeds_$name" >"$log" 2>&1; then
        grep -E '^stat::(number_of_executed_units|new_units_added|peak_rss_mb)' "$log" |
            sed "s/^/fuzz_$name: /"
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        cpu=$(tail -n 1 "$log.cpu" 2>/dev/null | awk 'NF == 2 { print $1 + $2 }')
        awk -v n="${execs:-0}" -v s="$start" -v e="$(date +%s.%N)" -v c="${cpu:-0}" \
            -v t="fuzz_$name" 'BEGIN {
            d = e - s; r = d > 0 ? n / d : 0; q = c > 0 ? n / c : r
            printf "%s: %d executions in %.1f s: %.0f/s, %.0f per CPU second%s\n", t, n, d, r, q,
                   q < 1000 ? " (under 1000)" : "" }'
        echo "fuzz_$name: ok"
    else
        fail=$((fail + 1))
        grep -E -A 30 'ERROR: |==ABORTING|deadly signal|runtime error|fuzz_meta: ' "$log" | head -n 60
        grep -E 'Test unit written|SUMMARY' "$log"
        echo "fuzz_$name: FAILED; reproduce with: $dir/fuzz_$name <the artifact file above>"
    fi
done
passed=$((ran - fail))
echo "fuzz: $passed passed, $fail failed"
if [ "$ran" -eq 0 ]; then
    exit 77
fi
[ "$fail" -eq 0 ]
