#!/usr/bin/env bash
# Reading a file of many row groups in a small fixed arena (`upq cat
# --arena`, on-demand row-group metadata), run by `make check`
# (check-lazy-rg):
#
#   test/lazy/lazy_rg.sh UPQ NODE WORKDIR [ROWS] [ARENA]
#
# Writes ROWS rows (default 100000) of 11 columns with `upq write
# --row-group-rows 1` (one row group per row), then checks that
#  - `upq cat --json --arena ARENA` (default 48K) prints exactly the rows
#    DuckDB reads from the file (test/interop/lazy_rg_duckdb.mjs);
#  - the same with an arena too small exits 1 with
#    `upq: arena too small: N bytes needed`, N above that arena.
# The eager footer of such a file needs about 19 KB of arena per row group on
# a 64-bit host (1.9 GB for 100,000); the arena here does not grow with them.
# ARENA is the host's figure: its column readers are about 2.3 KB each with
# 64-bit pointers; the Cortex-M4 reads the same 11 columns in 32 KB
# (test/firmware/run.sh). One line per check, then "N passed, N failed".
set -u
upq=${1:?UPQ} node=${2:?NODE} work=${3:?WORKDIR} rows=${4:-100000} arena=${5:-48K}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$work"
passed=0
failed=0
pass() { echo "PASS lazy-rg: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL lazy-rg: $1"; [ -n "${2:-}" ] && echo "    $2"; failed=$((failed + 1)); }

file=$work/rg$rows.parquet
if ! bash "$here/make_rg_file.sh" "$upq" "$rows" "$file" >"$work/write.out" 2>&1; then
    fail "upq write --row-group-rows 1 ($rows rows)" "$(tail -n 2 "$work/write.out")"
    echo "$passed passed, $failed failed"
    exit 1
fi
pass "$rows rows of 11 columns, one row group each: $(wc -c <"$file") bytes"

t0=$(date +%s)
if out=$(cd "$here/../interop" && "$node" lazy_rg_duckdb.mjs --upq "$upq" \
    --cat-args "--arena $arena" "$file" 2>&1) && grep -q '^1 passed, 0 failed' <<<"$out"; then
    pass "upq cat --json --arena $arena prints DuckDB's $rows rows ($(($(date +%s) - t0)) s)"
else
    fail "upq cat --json --arena $arena against DuckDB" "$(tail -n 3 <<<"$out")"
fi

# too small: the size needed (that of the request that failed)
"$upq" cat --json --arena 6K --head 3 "$file" >"$work/small.out" 2>"$work/small.err"
rc=$?
need=$(sed -n 's/^upq: arena too small: \([0-9]*\) bytes needed$/\1/p' "$work/small.err")
if [ "$rc" -eq 1 ] && [ -n "$need" ] && [ "$need" -gt 6144 ] && [ ! -s "$work/small.out" ]; then
    pass "--arena 6K: exit 1, arena too small: $need bytes needed"
else
    fail "--arena 6K: want exit 1 and 'upq: arena too small: N bytes needed' (exit $rc)" \
        "$(head -n 2 "$work/small.err")"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
