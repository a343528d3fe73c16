#!/usr/bin/env bash
# Reading a file of many row groups in a small fixed arena (`upq cat
# --arena`, on-demand row-group metadata), run by `make check`
# (check-lazy-rg):
#
#   test/lazy/lazy_rg.sh UPQ NODE WORKDIR [ROWS] [ARENA]
#
# Writes ROWS rows (default 100000) of 11 columns with `upq write
# --row-group-rows 1` (one row group per row), then checks that
#  - `upq cat --json --arena ARENA` (default 32K) prints exactly the rows
#    DuckDB reads from a 10,000-row-group file (test/interop/lazy_rg_duckdb.mjs),
#    and on the ROWS-row-group file the same rows as `upq cat` without
#    --arena (eager row groups; itself checked against DuckDB elsewhere);
#  - the same with an arena too small exits 1 with
#    `upq: arena too small: N bytes needed`, N above that arena, and reads the
#    rows in N bytes.
# The eager footer of such a file needs about 19 KB of arena per row group on
# a 64-bit host (1.9 GB for 100,000); the arena here does not grow with them.
# The host reads it in the same 32 KB as the Cortex-M4 does
# (test/firmware/run.sh). One line per check, then "N passed, N failed".
set -u
upq=${1:?UPQ} node=${2:?NODE} work=${3:?WORKDIR} rows=${4:-100000} arena=${5:-32K}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$work"
label=lazy-rg
# shellcheck source=../checks.sh
source "$here/../checks.sh"

# make_file N: the N-row file, or a failure
make_file() {
    local f=$work/rg$1.parquet
    if bash "$here/make_rg_file.sh" "$upq" "$1" "$f" >"$work/write$1.out" 2>&1; then
        pass "$1 rows of 11 columns, one row group each: $(wc -c <"$f") bytes"
        return 0
    fi
    fail "upq write --row-group-rows 1 ($1 rows)" "$(tail -n 2 "$work/write$1.out")"
    return 1
}

# DuckDB's reading of a 10,000-row-group file (DuckDB's time grows faster than
# linearly with row groups: at 100,000 it takes minutes)
small=$((rows < 10000 ? rows : 10000))
if make_file "$small"; then
    t0=$(date +%s)
    if out=$(cd "$here/../interop" && "$node" lazy_rg_duckdb.mjs --upq "$upq" \
        --cat-args "--arena $arena" "$work/rg$small.parquet" 2>&1) &&
        grep -q '^1 passed, 0 failed' <<<"$out"; then
        pass "upq cat --json --arena $arena prints DuckDB's $small rows ($(($(date +%s) - t0)) s)"
    else
        fail "upq cat --json --arena $arena against DuckDB ($small rows)" "$(tail -n 3 <<<"$out")"
    fi
    rm -f "$work/rg$small.parquet"
fi
make_file "$rows" || { echo "$passed passed, $failed failed"; exit 1; }
file=$work/rg$rows.parquet
# the full file: the same as upq cat with the arena it grows (eager row groups;
# ~1.9 GB of arena at 100,000 row groups)
t0=$(date +%s)
"$upq" cat --json --arena "$arena" "$file" >"$work/lazy.jsonl" 2>"$work/lazy.err"
rc=$?
t1=$(date +%s)
"$upq" cat --json "$file" >"$work/eager.jsonl" 2>"$work/eager.err"
rc2=$?
t2=$(date +%s)
if [ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] && [ "$(wc -l <"$work/lazy.jsonl")" -eq "$rows" ] &&
    cmp -s "$work/lazy.jsonl" "$work/eager.jsonl"; then
    pass "upq cat --json --arena $arena on $rows row groups: the same $rows rows as eager upq cat ($((t1 - t0)) s; eager $((t2 - t1)) s)"
else
    fail "upq cat --json --arena $arena on $rows row groups differs from eager upq cat (exit $rc, $rc2)" \
        "$(head -n 2 "$work/lazy.err" "$work/eager.err")"
fi
rm -f "$work/lazy.jsonl" "$work/eager.jsonl"

# too small: the size the command needs, in which it then runs
"$upq" cat --json --arena 6K --head 3 "$file" >"$work/small.out" 2>"$work/small.err"
rc=$?
need=$(sed -n 's/^upq: arena too small: \([0-9]*\) bytes needed$/\1/p' "$work/small.err")
if [ "$rc" -eq 1 ] && [ -n "$need" ] && [ "$need" -gt 6144 ] && [ ! -s "$work/small.out" ] &&
    "$upq" cat --json --arena "$need" --head 3 "$file" >"$work/small.out" 2>"$work/small.err" &&
    [ "$(wc -l <"$work/small.out")" -eq 3 ]; then
    pass "--arena 6K: exit 1, arena too small: $need bytes needed; --arena $need reads the rows"
else
    fail "--arena 6K: want exit 1 and 'upq: arena too small: N bytes needed', then the rows in N (exit $rc)" \
        "$(head -n 2 "$work/small.err")"
fi
rm -f "$file"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
