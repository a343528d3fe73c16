#!/usr/bin/env bash
# The hostile-input stage (make check-write-hostile): `upq write` on inputs
# made to cost memory or time out of proportion, and on every kind of schema
# it must refuse. Each input is made here (nothing large is committed) and
# given to two builds of upq:
#
#  - the plain build (what users run): exit status, peak RSS from
#    `/usr/bin/time -f %M` under RSS_MAX_KB (256 MB), and the time;
#  - the ASan + UBSan build: the same exit status and no sanitizer report.
#
# An input upq must refuse: exit status 1, a message naming what and where
# (the matching text is given per case: the line, and the column or the
# option), and neither OUT nor OUT.tmp left behind. An input it must write:
# exit status 0 and the rows read back.
#
#   test/hostile/run.sh UPQ UPQ_ASAN WORK_DIR
#
# Every check prints `ok ...` or `FAIL ...`; the last line is
# `N passed, N failed`. Exit status 77 (skipped) when /usr/bin/time is absent
# (Debian package `time`; .ci/run installs it).
set -u
upq=$1
asan=$2
work=$3
RSS_MAX_KB=${RSS_MAX_KB:-262144}
TIME=/usr/bin/time
if [ ! -x "$TIME" ]; then
    echo "hostile: $TIME is missing (Debian package time): skipped"
    exit 77
fi
for b in "$upq" "$asan"; do
    [ -x "$b" ] || { echo "hostile: no $b"; echo "0 passed, 1 failed"; exit 1; }
done
rm -rf "$work"
mkdir -p "$work"
# the checkpoint case syncs at every row group: on tmpfs a sync is free, so
# the time measured is upq's, not the disk's
fast=$work
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    fast=$(mktemp -d -p /dev/shm upq-hostile.XXXXXX)
    trap 'rm -rf "$fast"' EXIT
fi
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1:strict_string_checks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

pass=0
fail=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# one_run LABEL BIN ARGS...: runs BIN write ARGS, leaves rc, rss (KB) and
# secs in globals, the messages in $work/LABEL.err
one_run() {
    local label=$1 bin=$2
    shift 2
    err=$work/$label.err
    "$TIME" -f '%M %e' -o "$work/$label.time" "$bin" write "$@" 2>"$err" >/dev/null
    rc=$?
    read -r rss secs <"$work/$label.time" 2>/dev/null || { rss=0; secs=0; }
    # GNU time puts "Command exited with non-zero status N" first
    if ! [[ $rss =~ ^[0-9]+$ ]]; then
        read -r rss secs < <(tail -n 1 "$work/$label.time")
    fi
}

# refuse NAME REGEX ARGS... (the last argument is OUT): both builds must
# exit 1 with REGEX in the message and leave no OUT or OUT.tmp
refuse() {
    local name=$1 re=$2
    shift 2
    local out=${*: -1} b label
    for b in plain asan; do
        label=$name.$b
        rm -f "$out" "$out.tmp"
        one_run "$label" "$([ $b = plain ] && echo "$upq" || echo "$asan")" "$@"
        local why=""
        [ "$rc" -eq 1 ] || why+=" exit status $rc (want 1);"
        grep -Eq -- "$re" "$work/$label.err" || why+=" message does not match /$re/;"
        [ -e "$out" ] || [ -e "$out.tmp" ] && why+=" output left behind;"
        if [ $b = asan ]; then
            grep -Eq 'Sanitizer|runtime error' "$work/$label.err" && why+=" sanitizer report;"
        elif [ "$rss" -ge "$RSS_MAX_KB" ]; then
            why+=" peak RSS ${rss} KB (bound ${RSS_MAX_KB} KB);"
        fi
        if [ -z "$why" ]; then
            ok "$label: refused in ${secs} s, ${rss} KB: $(head -n 1 "$work/$label.err")"
        else
            bad "$label:$why $(head -c 400 "$work/$label.err")"
        fi
    done
}

# write_ok NAME ROWS BIN_KINDS ARGS... (the last argument is OUT): exit 0,
# ROWS rows read back, the RSS bound for the plain build; with $expect set,
# `upq cat --json OUT` must print that file exactly
write_ok() {
    local name=$1 rows=$2 kinds=$3
    shift 3
    local out=${*: -1} b label
    for b in $kinds; do
        label=$name.$b
        rm -f "$out" "$out.tmp"
        one_run "$label" "$([ $b = plain ] && echo "$upq" || echo "$asan")" "$@"
        local why=""
        [ "$rc" -eq 0 ] || why+=" exit status $rc (want 0);"
        if [ $b = asan ]; then
            grep -Eq 'Sanitizer|runtime error' "$work/$label.err" && why+=" sanitizer report;"
        elif [ "$rss" -ge "$RSS_MAX_KB" ]; then
            why+=" peak RSS ${rss} KB (bound ${RSS_MAX_KB} KB);"
        fi
        if [ -z "$why" ]; then
            local got
            got=$("$upq" cat --json "$out" 2>/dev/null | wc -l)
            [ "$got" -eq "$rows" ] || why+=" $got rows read back (want $rows);"
            if [ -n "${expect:-}" ] && ! "$upq" cat --json "$out" 2>/dev/null | cmp -s - "$expect"; then
                why+=" rows read back differ from $expect;"
            fi
        fi
        if [ -z "$why" ]; then
            ok "$label: written in ${secs} s, ${rss} KB"
        else
            bad "$label:$why $(head -c 400 "$work/$label.err")"
        fi
        rm -f "$out"
    done
}

cd "$work" || exit 1
echo '{"a":1}' >one.jsonl

# ---- --shred spec nested 10,000 deep -------------------------------------------
printf 'message m {\n  required group v (VARIANT(1)) {\n    required binary metadata;\n    required binary value;\n  }\n}\n' >variant.schema
echo '{"v":1}' >variant.jsonl
spec=$(printf '%*s' 10000 '' | tr ' ' '[')int32$(printf '%*s' 10000 '' | tr ' ' ']')
refuse shred-deep "^upq: --shred: nested deeper than 32 groups at offset [0-9]+" \
    --schema variant.schema --shred "v=$spec" variant.jsonl out.parquet

# ---- a 100 MB line: one list of 50M integers -------------------------------------
printf 'message m {\n  optional group l (LIST) {\n    repeated group list {\n      optional int64 element;\n    }\n  }\n}\n' >list.schema
{
    printf '{"l":['
    yes '1,' | head -n 49999999 | tr -d '\n'
    printf '1]}\n'
} >list.jsonl
refuse list-50M "^upq: list.jsonl:1:[0-9]+: an array or object of more than 65535 members" \
    --schema list.schema list.jsonl out.parquet
rm -f list.jsonl

# ---- deep JSON, deep schema --------------------------------------------------------
{
    printf '{"l":'
    printf '%*s' 100000 '' | tr ' ' '['
    printf '%*s' 100000 '' | tr ' ' ']'
    printf '}\n'
} >deep.jsonl
refuse json-deep "^upq: deep.jsonl:1:[0-9]+: invalid JSON: nested too deeply" \
    --schema list.schema deep.jsonl out.parquet
{
    echo 'message m {'
    for i in $(seq 0 9999); do echo "required group g$i {"; done
    echo 'required int32 x;'
    for i in $(seq 0 9999); do echo '}'; done
    echo '}'
} >deep.schema
refuse schema-deep "^upq: deep.schema: line 34: 'g32': nested deeper than 32 groups" \
    --schema deep.schema one.jsonl out.parquet

# ---- every schema upq write must refuse --------------------------------------------
bad_schema() {
    local name=$1 body=$2 re=$3
    printf 'message m {\n%b}\n' "$body" >"$name.schema"
    refuse "schema-$name" "^upq: $name.schema: line $re" --schema "$name.schema" one.jsonl out.parquet
}
bad_schema interval-int32 '  required int32 a (INTERVAL);\n' "2: 'a': INTERVAL off fixed_len_byte_array\\(12\\)"
bad_schema interval-flba11 '  required fixed_len_byte_array(11) a (INTERVAL);\n' "2: 'a': INTERVAL off fixed_len_byte_array\\(12\\)"
bad_schema geometry-int32 '  required int32 a (GEOMETRY);\n' "2: 'a': GEOMETRY does not fit int32"
bad_schema geography-int32 '  required int32 a (GEOGRAPHY);\n' "2: 'a': GEOGRAPHY does not fit int32"
bad_schema geography-algorithm '  required binary a (GEOGRAPHY(OGC:CRS84,NOPE));\n' "2: unknown GEOGRAPHY edge algorithm 'NOPE'"
bad_schema variant-primitive '  required binary a (VARIANT(1));\n' "2: 'a': VARIANT annotates a group, not binary"
bad_schema variant-2 '  required group a (VARIANT(2)) {\n    required binary metadata;\n    required binary value;\n  }\n' "2: 'a': VARIANT specification version other than 1"
bad_schema variant-no-value '  required group a (VARIANT(1)) {\n    required binary metadata;\n  }\n' "4: group 'a': a VARIANT group needs a binary 'value'"
bad_schema list-two-repeated '  optional group a (LIST) {\n    repeated int32 x;\n    repeated int32 y;\n  }\n' "5: group 'a': a LIST group needs exactly one child, a repeated one"
bad_schema duplicate '  required int32 a;\n  required int64 a;\n' "3: 'a': two fields of one name in a group"
bad_schema annotation-open '  required int32 a (DECIMAL(5,2;\n' "2: 'a \\(DECIMAL\\(5,2': an annotation not closed"
bad_schema field-id '  required int32 a = x;\n' "2: 'a = x': want '= FIELD_ID'"
printf 'message m {\n  required int32 a;\n}\n' >a.schema
refuse kv-no-equals "^upq: --kv 'abc': want KEY=VALUE" --schema a.schema --kv abc one.jsonl out.parquet

# ---- written, within the bound ---------------------------------------------------------
# a BYTE_ARRAY value of 100 MB
printf 'message m {\n  required binary b (STRING);\n}\n' >value.schema
{
    printf '{"b":"'
    head -c 100000000 /dev/zero | tr '\0' 'x'
    printf '"}\n'
} >value.jsonl
expect=value.jsonl write_ok value-100MB 1 "plain asan" --schema value.schema value.jsonl out.parquet
rm -f value.jsonl

# --checkpoint --row-group-rows 1 on 100,000 three-column rows (the ASan
# build on the first 10,000: it is the same code, ten times slower)
printf 'message m {\n  required int64 a;\n  optional binary s (STRING);\n  optional double d;\n}\n' >three.schema
seq 0 99999 | awk '{ printf "{\"a\":%d,\"s\":\"s%d\",\"d\":%d.5}\n", $1, $1, $1 }' >three.jsonl
head -n 10000 three.jsonl >three10k.jsonl
write_ok checkpoint-rg1 100000 plain --schema three.schema --checkpoint --row-group-rows 1 \
    three.jsonl "$fast/three.parquet"
write_ok checkpoint-rg1-10k 10000 asan --schema three.schema --checkpoint --row-group-rows 1 \
    three10k.jsonl "$fast/three.parquet"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
