# Helpers of the integration scripts (run.sh, builds.sh), sourced: counters,
# a command whose log shows on failure, a consumer's own verdict, and DuckDB
# reading what a consumer wrote. Needs $top and $node.
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
# run LABEL LOG CMD...: the command's output goes to LOG, shown on failure
run() {
    local label=$1 log=$2
    shift 2
    if "$@" >"$log" 2>&1; then return 0; fi
    tail -n 30 "$log"
    fail "$label (log: $log)"
    return 1
}
# consumer_passed LABEL LOG: the consumer's own last line says all passed
consumer_passed() {
    local last
    last=$(tail -n 1 "$2")
    if [[ $last =~ ^([0-9]+)\ passed,\ 0\ failed$ ]] && [ "${BASH_REMATCH[1]}" -gt 0 ]; then
        ok "$1: $last"
    else
        cat "$2"
        fail "$1: $last"
    fi
}
# duckdb_written LABEL FILE: DuckDB reads what the consumer wrote
duckdb_written() {
    local got want='["50","1225",612.5,"alpha,beta,gamma,alpha"]'
    got=$("$node" "$top/test/interop/duckdb_sql.mjs" \
        "SELECT count(*), sum(id), sum(reading), string_agg(name, ',' ORDER BY id) FILTER (WHERE id < 4) FROM '$2'" 2>&1)
    if [ "$got" = "$want" ]; then ok "$1: DuckDB reads the written file: $got"; else fail "$1: DuckDB: $got, want $want"; fi
}
