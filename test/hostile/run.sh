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
# exit status 0 and the rows read back. Every run has a hang guard
# (HANG_SECS, 300): an input that costs time out of proportion fails.
#
# The inputs: lines of 100 MB (one list of 50M entries, in schemas with and
# without a VARIANT and in a VARIANT; 50,000 lists of 1,000; one string,
# written), a line over 100 MB, deep JSON, schemas and --shred specs; 10,000
# columns (buffered and --checkpoint) and 100,000 (--checkpoint) written,
# 100,000 buffered and a 16 MB schema of 700,000 refused as too wide, a
# schema over 16 MB; every schema upq write must refuse; key material of a
# million references (upq cat), one over the limit, refused --kms-key
# values (ASan: no leak); row groups of one row with checkpoints.
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

# one_run LABEL BIN ARGS...: runs BIN ${cmd:-write} ARGS (under a hang
# guard of HANG_SECS), leaves rc, rss (KB) and secs in globals, the
# messages in $work/LABEL.err
HANG_SECS=${HANG_SECS:-300}
one_run() {
    local label=$1 bin=$2
    shift 2
    err=$work/$label.err
    "$TIME" -f '%M %e' -o "$work/$label.time" timeout "$HANG_SECS" "$bin" "${cmd:-write}" "$@" \
        2>"$err" >/dev/null
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
# the same line where the schema has other columns and a VARIANT (whose own
# arrays and objects are held to the same limit)
cat >multi.schema <<'EOF'
message m {
  optional int64 a;
  optional binary s (STRING);
  optional group l (LIST) {
    repeated group list {
      optional int64 element;
    }
  }
  optional group v (VARIANT(1)) {
    required binary metadata;
    required binary value;
  }
  optional double d;
}
EOF
refuse list-50M-variant "^upq: list.jsonl:1:[0-9]+: an array or object of more than 65535 members" \
    --schema multi.schema list.jsonl out.parquet
sed 's/^{"l":/{"v":/' list.jsonl >vlist.jsonl
rm -f list.jsonl
refuse variant-50M "^upq: vlist.jsonl:1:[0-9]+: an array or object of more than 65535 members" \
    --schema multi.schema vlist.jsonl out.parquet
rm -f vlist.jsonl

# ---- a 100 MB line of 50,000 lists of 1,000: no container over the limit,
# but more values than a row may hold (in a list of lists, in a VARIANT) -------------
printf 'message m {\n  optional group l (LIST) {\n    repeated group list {\n      optional group element (LIST) {\n        repeated group list {\n          optional int64 element;\n        }\n      }\n    }\n  }\n}\n' >lists.schema
inner="[$(yes 1 | head -n 999 | tr '\n' ,)1]"
{
    printf '{"l":['
    yes "$inner" | head -n 49999 | tr '\n' ,
    printf '%s]}\n' "$inner"
} >lists.jsonl
refuse lists-100MB "^upq: lists.jsonl:1:[0-9]+: a row of more than 2097152 JSON values" \
    --schema lists.schema lists.jsonl out.parquet
sed 's/^{"l":/{"v":/' lists.jsonl >vlists.jsonl
rm -f lists.jsonl
refuse variant-lists-100MB "^upq: vlists.jsonl:1:[0-9]+: a row of more than 2097152 JSON values" \
    --schema multi.schema vlists.jsonl out.parquet
rm -f vlists.jsonl

# ---- a line over 100 MB: refused once 100 MB of it is read -------------------------
{
    printf '{"s":"'
    head -c 110000000 /dev/zero | tr '\0' 'x'
    printf '"}\n'
} >long.jsonl
refuse line-110MB "^upq: long.jsonl:1: a line longer than 100 MB" \
    --schema multi.schema long.jsonl out.parquet
rm -f long.jsonl

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
# ... in a schema with other columns and a VARIANT (the row is rewritten
# around the Variant: the line is not kept beside its rewritten text)
{
    printf '{"a":1,"s":"'
    head -c 100000000 /dev/zero | tr '\0' 'x'
    printf '","l":[1,2],"v":{"x":[1,"y"]},"d":0.5}\n'
} >value.jsonl
expect=value.jsonl write_ok value-100MB-variant 1 plain --schema multi.schema value.jsonl out.parquet
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

# ---- wide schemas: the pages shrink to fit, or the schema is refused at once ---------
# wide_schema N: message syntax of N optional int32 columns c0..c(N-1);
# wide_row N: the row {"c0":0,...} (as `upq cat --json` prints it)
wide_schema() { awk -v n="$1" 'BEGIN { print "message m {"; for (i = 0; i < n; i++) printf "  optional int32 c%d;\n", i; print "}" }'; }
wide_row() { awk -v n="$1" 'BEGIN { printf "{"; for (i = 0; i < n; i++) printf "%s\"c%d\":%d", i ? "," : "", i, i; print "}" }'; }
wide_schema 10000 >wide10k.schema
wide_row 10000 >wide10k.jsonl
expect=wide10k.jsonl write_ok wide-10k 1 "plain asan" --schema wide10k.schema wide10k.jsonl out.parquet
expect=wide10k.jsonl write_ok wide-10k-checkpoint 1 "plain asan" --checkpoint --schema wide10k.schema \
    wide10k.jsonl "$fast/wide.parquet"
wide_schema 100000 >wide100k.schema
wide_row 100000 >wide100k.jsonl
expect=wide100k.jsonl write_ok wide-100k-checkpoint 1 plain --checkpoint --schema wide100k.schema \
    wide100k.jsonl "$fast/wide.parquet"
refuse wide-100k "^upq: out.parquet: 100000 columns need a [0-9]+-byte arena even with 256-byte pages" \
    --schema wide100k.schema wide100k.jsonl out.parquet
# the largest schema file taken (16 MB, some 800,000 columns) refused as
# too wide before its tree is made, and one byte more refused as a schema
awk 'BEGIN { print "message m {"; for (i = 0; i < 700000; i++) printf "required int32 %x;\n", i; print "}" }' \
    >wide16M.schema
[ "$(stat -c %s wide16M.schema)" -le $((16 << 20)) ] || bad "wide16M.schema is over 16 MB"
refuse wide-16MB "^upq: out.parquet: 700000 columns need a [0-9]+-byte arena" \
    --schema wide16M.schema one.jsonl out.parquet
head -c $(((16 << 20) + 1)) /dev/zero | tr '\0' ' ' >big.schema
refuse schema-over-16MB "^upq: big.schema: larger than 16 MB: too large for a schema" \
    --schema big.schema one.jsonl out.parquet
rm -f wide16M.schema big.schema wide100k.jsonl

# ---- key material: a side file of a million references (parsed in n log n: the
# pairwise check took an hour), one reference more refused; a refused
# --kms-key value leaks nothing -------------------------------------------------------
kms=(--kms-key mf=text:master-footer-k!)
"$upq" write --schema a.schema "${kms[@]}" --footer-master-key mf --external-key-material \
    one.jsonl enc.parquet 2>"$work/enc.err" || bad "enc.parquet not written: $(cat "$work/enc.err")"
# material N: the side file with N references more than its own
material() {
    awk -v n="$1" 'BEGIN { printf "{"; for (i = 0; i < n; i++) printf "\"r%07d\":\"x\",", i }'
    tail -c +2 _KEY_MATERIAL_FOR_enc.parquet.json
}
material 1000000 >mat1M.json
material 1048576 >matover.json
# check_cmd NAME WANT_RC REGEX KINDS CMD ARGS...: `upq CMD ARGS` in each
# build of KINDS: exit status WANT_RC, REGEX in the messages (unless
# empty), the RSS bound for the plain build, no report from the other
check_cmd() {
    local name=$1 want=$2 re=$3 kinds=$4 b label
    cmd=$5
    shift 5
    for b in $kinds; do
        label=$name.$b
        one_run "$label" "$([ $b = plain ] && echo "$upq" || echo "$asan")" "$@"
        local why=""
        [ "$rc" -eq "$want" ] || why+=" exit status $rc (want $want);"
        [ -z "$re" ] || grep -Eq -- "$re" "$work/$label.err" || why+=" message does not match /$re/;"
        if [ $b = asan ]; then
            grep -Eq 'Sanitizer|runtime error' "$work/$label.err" && why+=" sanitizer report;"
        elif [ "$rss" -ge "$RSS_MAX_KB" ]; then
            why+=" peak RSS ${rss} KB (bound ${RSS_MAX_KB} KB);"
        fi
        if [ -z "$why" ]; then
            ok "$label: exit $rc in ${secs} s, ${rss} KB"
        else
            bad "$label:$why $(head -c 400 "$work/$label.err")"
        fi
    done
    cmd=
}
check_cmd material-1M 0 "" "plain asan" cat --json "${kms[@]}" --key-material mat1M.json enc.parquet
check_cmd material-over 1 "more than 1048576 members" "plain asan" cat --json "${kms[@]}" \
    --key-material matover.json enc.parquet
rm -f mat1M.json matover.json
check_cmd kms-key-bad-cat 1 "key 'zz' is not 16, 24 or 32 bytes" asan cat --json --kms-key mf=zz enc.parquet
check_cmd kms-key-bad-write 1 "key 'zz' is not 16, 24 or 32 bytes" asan write --schema a.schema \
    --kms-key mf=zz --footer-master-key mf one.jsonl out.parquet

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
