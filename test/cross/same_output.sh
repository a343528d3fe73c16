#!/usr/bin/env bash
# Another target's upq prints exactly what the host's prints.
#
#   test/cross/same_output.sh HOST_UPQ OTHER_UPQ [CORPUS_DIR...]
#
# For every *.parquet file under the corpus directories ($PARQUET_TESTING_DIR
# by default, the readable and the broken ones): `upq meta --json` and `upq cat --json`
# of both must give the same standard output and the same exit status (an
# error on one side only is a difference too). Run with OTHER_UPQ a script
# that starts the cross-built upq under qemu-user (a big-endian one shows
# every place that reads the host's byte order). The host's upq output is
# itself checked against DuckDB by the conformance stage.
# Prints one line per difference and `same-output: N passed, N failed`.
set -u
host=$1
other=$2
shift 2
[ $# -gt 0 ] || set -- "${PARQUET_TESTING_DIR:-../shared/parquet-testing}"
for d in "$@"; do
    [ -d "$d" ] || { echo "same-output: no corpus directory $d"; echo "same-output: 0 passed, 1 failed"; exit 1; }
done
for u in "$host" "$other"; do
    [ -x "$u" ] || { echo "same-output: $u is not built"; echo "same-output: 0 passed, 1 failed"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
start=$(date +%s)
while IFS= read -r f; do
    for cmd in meta cat; do
        "$host" "$cmd" --json "$f" >"$tmp/a" 2>/dev/null </dev/null
        ra=$?
        timeout 300 "$other" "$cmd" --json "$f" >"$tmp/b" 2>"$tmp/berr" </dev/null
        rb=$?
        if [ "$ra" -ne "$rb" ]; then
            echo "FAIL $cmd $f: exit status $rb, host $ra: $(tail -n 1 "$tmp/berr")"
            fail=$((fail + 1))
        elif ! cmp -s "$tmp/a" "$tmp/b"; then
            echo "FAIL $cmd $f: output differs from the host's: $(cmp "$tmp/a" "$tmp/b" 2>&1 | head -n 1)"
            diff <(head -c 100000 "$tmp/a") <(head -c 100000 "$tmp/b") | head -n 6 | sed 's/^/    /'
            fail=$((fail + 1))
        else
            pass=$((pass + 1))
        fi
    done
done < <(find "$@" -name '*.parquet' -type f | LC_ALL=C sort)
echo "same-output: $(($(date +%s) - start))s for $((pass + fail)) comparisons"
echo "same-output: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
