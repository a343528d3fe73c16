#!/usr/bin/env bash
# Byte-identical output of two builds: the proof that a change of the
# writer's structure did not change what it writes.
#
#   test/house/same_bytes.sh [--ref COMMIT] [--upq PATH --sensor PATH] [--files-from LIST]
#                            [--dir DIR] [--only REGEX] [--list]
#
# Builds `upq` and `sensor_logger` from COMMIT (default: where this branch
# left main, `git merge-base HEAD main`) into DIR/ref-<commit>/ (kept, so a
# second run reuses it), takes the work tree's from PATH (default:
# build/host/upq and build/host/sensor_logger; `make check-same-bytes` builds
# them first), runs the same cases with each and compares, per case, the
# exit status, what it printed and every file it left, byte for byte:
#
#   read:F        `upq schema F` and `upq cat --json F` of each corpus file F
#                 (the files of LIST, e.g. build/check/conformance.pass from
#                 check-conformance; else every .parquet under
#                 $PARQUET_TESTING_DIR/data the reference reads);
#   write:F:SET   `upq write` of the reference's rows and schema of F in
#                 each option set of SETS below (buffered, direct, checkpoint
#                 mode through a sink that blocks, v2 pages, codecs,
#                 dictionaries, encryption);
#   logger:*      sensor_logger runs: defaults, checkpoints, --again,
#                 rotation by rows and by bytes, logs cut by a power loss at
#                 eight points, recovered by `upq recover` and continued by
#                 --resume, a closed log continued;
#   crypt:*       the logger's rows written encrypted in checkpoint mode
#                 (uniform and per-column keys, plaintext footer, CTR), cut
#                 at eight points, recovered or appended to (`--append`).
#
# test/house/same_bytes_shim.c is preloaded into both builds' runs: its
# getrandom() gives every process the same bytes (encryption's nonces and
# aad_file_unique), and its pwrite() cuts a log where SAME_BYTES_CUT says.
# Prints `ok NAME` / `FAIL NAME: ...` per case and `N passed, N failed`;
# exits 1 on any difference.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2

ref=${SAME_BYTES_REF:-}
work_upq=build/host/upq
work_sensor=build/host/sensor_logger
files_from=
dir=build/same-bytes
only=
list=0
while [ $# -gt 0 ]; do
    case $1 in
    --ref) ref=$2; shift 2 ;;
    --upq) work_upq=$2; shift 2 ;;
    --sensor) work_sensor=$2; shift 2 ;;
    --files-from) files_from=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --list) list=1; shift ;;
    *) echo "same_bytes: unknown argument $1" >&2; exit 2 ;;
    esac
done
corpus=${PARQUET_TESTING_DIR:-$top/../shared/parquet-testing}
corpus=$(cd "$corpus" && pwd) || { echo "same_bytes: no corpus at $corpus" >&2; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# ---- option sets of the corpus round trips -----------------------------------------

KEY=000102030405060708090a0b0c0d0e0f
KEY2=f0e0d0c0b0a090807060504030201000
SETS=(
    "defaults|"
    "v2-snappy-plain|--data-page-v2 --codec SNAPPY --no-dictionary --row-group-rows 7 --page-size 64K"
    "dict-gzip-small|--dictionary --codec GZIP --dict-size 256 --page-size 1K --row-group-rows 100 --column-order ieee754 --stats-max-binary 8"
    "lz4-direct|--codec LZ4_RAW --direct --no-crc --kv a=b"
    "chunks-by-bytes|--page-size 1K --chunk-size 8K --max-pages 8 --row-group-size 6K --page-levels 50 --no-statistics"
    "checkpoint-blocking|--checkpoint --checkpoint-rows 20 --page-levels 64 --row-group-rows 100 --row-group-size 4K --dictionary --chunk 13 --again"
    "checkpoint-v2-snappy|--checkpoint --data-page-v2 --codec SNAPPY --checkpoint-rows 50 --file-id 7 --no-page-index"
    "encrypted|--footer-key $KEY --codec SNAPPY --row-group-rows 50"
    "encrypted-checkpoint|--checkpoint --checkpoint-rows 30 --row-group-rows 90 --footer-key $KEY --plaintext-footer --ctr --aad-prefix same"
)

if [ $list = 1 ]; then
    for s in "${SETS[@]}"; do echo "write set ${s%%|*}: ${s#*|}"; done
    exit 0
fi

# ---- the two builds ------------------------------------------------------------------

[ -n "$ref" ] || ref=$(git merge-base HEAD main) || { echo "same_bytes: no merge base with main; give --ref" >&2; exit 2; }
sha=$(git rev-parse --verify -q "$ref^{commit}") || { echo "same_bytes: $ref is not a commit" >&2; exit 2; }
rdir=$dir/ref-${sha:0:12}
ref_upq=$rdir/src/build/host/upq
ref_sensor=$rdir/src/build/host/sensor_logger
if [ ! -x "$ref_upq" ] || [ ! -x "$ref_sensor" ]; then
    echo "same_bytes: building the reference ${sha:0:12} in $rdir"
    rm -rf "$rdir"
    mkdir -p "$rdir/src"
    git archive "$sha" | tar -x -C "$rdir/src" || exit 2
    # the codec packages this tree unpacked (make deps), not fetched again
    if ! nice make -C "$rdir/src" -j2 DEPS_DIR="$top/codecs/.deps" build/host/upq build/host/sensor_logger \
            > "$rdir/build.log" 2>&1; then
        tail -20 "$rdir/build.log"
        echo "same_bytes: the reference does not build (log: $rdir/build.log)" >&2
        exit 2
    fi
fi
for b in "$work_upq" "$work_sensor"; do
    [ -x "$b" ] || { echo "same_bytes: $b is missing (make $b)" >&2; exit 2; }
done
work_upq=$(cd "$(dirname "$work_upq")" && pwd)/$(basename "$work_upq")
work_sensor=$(cd "$(dirname "$work_sensor")" && pwd)/$(basename "$work_sensor")

shim=$dir/same_bytes_shim.so
if [ ! -f "$shim" ] || [ "$top/test/house/same_bytes_shim.c" -nt "$shim" ]; then
    cc -shared -fPIC -O2 -o "$shim" "$top/test/house/same_bytes_shim.c" -ldl || exit 2
fi

echo "same_bytes: reference ${sha:0:12} ($(git log -1 --format=%s "$sha" | cut -c1-60))"
echo "same_bytes: work $work_upq, $work_sensor"

# ---- running a case with each build ----------------------------------------------------

run=$dir/run
rm -rf "$run"
mkdir -p "$run/ref" "$run/work" "$run/in"
in=$run/in
passed=0
failed=0

# side SIDE NAME FUNC ARGS...: runs FUNC in a fresh directory of its own with
# $UPQ and $SENSOR set to SIDE's binaries; status and output are kept beside it.
side() {
    local s=$1 name=$2 d
    shift 2
    d=$run/$s/$name
    mkdir -p "$d"
    if [ "$s" = ref ]; then
        (cd "$d" && UPQ=$ref_upq SENSOR=$ref_sensor LD_PRELOAD=$shim "$@") > "$d.out" 2>&1
    else
        (cd "$d" && UPQ=$work_upq SENSOR=$work_sensor LD_PRELOAD=$shim "$@") > "$d.out" 2>&1
    fi
    echo $? > "$d.rc"
}

# both NAME FUNC ARGS...: the case with each build, then the comparison.
both() {
    local name=$1 a b f why=
    [ -n "$only" ] && ! [[ $name =~ $only ]] && return 0
    side ref "$@"
    side work "$@"
    a=$run/ref/$name
    b=$run/work/$name
    if ! cmp -s "$a.rc" "$b.rc"; then
        why="exit status $(cat "$a.rc") -> $(cat "$b.rc")"
    elif ! cmp -s "$a.out" "$b.out"; then
        why="output differs: $(diff "$a.out" "$b.out" | sed -n 2p | cut -c1-100)"
    else
        for f in $( (cd "$a" && find . -type f; cd "$b" && find . -type f) | sort -u); do
            if [ ! -f "$a/$f" ] || [ ! -f "$b/$f" ]; then
                why="$f: only in $([ -f "$a/$f" ] && echo ref || echo work)"
                break
            fi
            if ! cmp -s "$a/$f" "$b/$f"; then
                why="$f: $(cmp "$a/$f" "$b/$f" 2>&1 | sed 's/^.*differ: //'), sizes $(stat -c %s "$a/$f") and $(stat -c %s "$b/$f")"
                break
            fi
        done
    fi
    if [ -z "$why" ]; then
        passed=$((passed + 1))
        echo "ok $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name: $why"
    fi
}

# ---- corpus: reading, then writing in every set ---------------------------------------------

c_read() { "$UPQ" schema "$1" > schema.txt && "$UPQ" cat --json "$1" > rows.jsonl; }
c_write() {
    # shellcheck disable=SC2086
    "$UPQ" write --schema "$1/schema.txt" $3 "$1/rows.jsonl" out.parquet
}

if [ -n "$files_from" ]; then
    mapfile -t files < <(grep '\.parquet$' "$files_from" | sort)
else
    mapfile -t files < <(find "$corpus/data" -name '*.parquet' | sort)
fi
left_out=()
for f in "${files[@]}"; do
    r=${f#"$corpus/data/"}
    r=${r//\//_}
    # the reference's reading is both builds' input
    mkdir -p "$in/$r"
    if ! (cd "$in/$r" && UPQ=$ref_upq c_read "$f") > "$in/$r.err" 2>&1; then
        left_out+=("$r ($(tail -1 "$in/$r.err" | cut -c1-80))")
        continue
    fi
    both "read:$r" c_read "$f"
    for s in "${SETS[@]}"; do
        both "write:$r:${s%%|*}" c_write "$in/$r" x "${s#*|}"
    done
done
for x in "${left_out[@]}"; do
    echo "left out (the reference does not read it): $x"
done

# ---- the sensor logger ------------------------------------------------------------------------

# The logger cut by a power loss: SAME_BYTES_CUT makes the shim end the
# process once that many bytes were written (the last write torn), at K/16
# of what the uncut run wrote (SAME_BYTES_TOTAL) for each K of CUTS.
CUTS="1 2 3 5 8 11 14 15"
L_OPTS="--rows 12000 --row-group-rows 5000 --checkpoint-rows 600"

l_run() { "$SENSOR" "$@" log.parquet; }
l_rotate() { "$SENSOR" "$@" log.parquet && ls; }
# l_cut K: cut$K.parquet, the logger's file cut at K/16 (log.parquet: uncut)
l_cut() {
    # shellcheck disable=SC2086
    [ -f log.parquet ] || SAME_BYTES_TOTAL=written "$SENSOR" $L_OPTS log.parquet > /dev/null || return
    # shellcheck disable=SC2086
    SAME_BYTES_CUT=$(($(cat written) * $1 / 16)) "$SENSOR" $L_OPTS "cut$1.parquet" > /dev/null
    echo "cut$1: exit status $?"
}
l_recover() {
    local k
    for k in $CUTS; do
        l_cut "$k" && echo "cut$k: $("$UPQ" recover "cut$k.parquet" 2>&1 | tail -1)"
    done
}
l_resume() {
    local k
    for k in $CUTS; do
        # shellcheck disable=SC2086
        l_cut "$k" && echo "cut$k: $("$SENSOR" --resume $L_OPTS "cut$k.parquet" 2>&1 | tail -1)"
    done
    "$SENSOR" --resume --rows 2000 --row-group-rows 5000 log.parquet
}

both logger:defaults l_run
both logger:small l_run --rows 4000 --row-group-rows 1000 --checkpoint-rows 100 --page-size 256
both logger:again l_run --rows 9000 --row-group-rows 2000 --checkpoint-rows 300 --again
both logger:no-checkpoints l_run --rows 9000 --row-group-rows 3000 --checkpoint-rows 0
both logger:rotate-rows l_rotate --rows 20000 --row-group-rows 3000 --checkpoint-rows 500 --max-file-rows 7000
both logger:rotate-bytes l_rotate --rows 20000 --row-group-rows 4000 --checkpoint-rows 500 --max-file-bytes 300000
both logger:recover l_recover
both logger:resume l_resume

# ---- encrypted checkpoint-mode logs (upq write over the logger's rows) ---------------------

(cd "$in" && UPQ=$ref_upq LD_PRELOAD=$shim "$ref_sensor" --rows 8000 sensor.parquet > /dev/null &&
    "$ref_upq" schema sensor.parquet > sensor.schema && "$ref_upq" cat --json sensor.parquet > sensor.jsonl) ||
    { echo "same_bytes: the reference logger's rows could not be made" >&2; exit 2; }

# e_log KEYS... -- OPTIONS...: the logger's rows written encrypted in
# checkpoint mode (KEYS and OPTIONS), then cut as the logger is: half of
# the cuts recovered (KEYS), the other half appended to (the rows again).
e_log() {
    local k n keys=()
    while [ "$1" != -- ]; do keys+=("$1"); shift; done
    shift
    SAME_BYTES_TOTAL=written "$UPQ" write --schema "$in/sensor.schema" --checkpoint-rows 400 \
        --row-group-rows 3000 "${keys[@]}" "$@" "$in/sensor.jsonl" log.parquet || return
    n=$(cat written)
    for k in $CUTS; do
        SAME_BYTES_CUT=$((n * k / 16)) "$UPQ" write --schema "$in/sensor.schema" --checkpoint-rows 400 \
            --row-group-rows 3000 "${keys[@]}" "$@" "$in/sensor.jsonl" cut.parquet
        echo "cut$k: exit status $?"
        mv cut.parquet.tmp "cut$k.parquet" || return
        case $k in
        1|3|8|14) echo "cut$k: $("$UPQ" recover "${keys[@]}" "cut$k.parquet" 2>&1 | tail -1)" ;;
        *) "$UPQ" write --schema "$in/sensor.schema" --checkpoint-rows 400 --row-group-rows 3000 \
               --append "${keys[@]}" "$@" "$in/sensor.jsonl" "cut$k.parquet"
           echo "cut$k: appended, exit status $?" ;;
        esac
    done
}

both crypt:uniform e_log --footer-key "$KEY" --
both crypt:columns e_log --footer-key "$KEY" --column-key "ch0=$KEY2" --column-key "device=$KEY2" -- --codec SNAPPY
both crypt:plaintext-ctr e_log --footer-key "$KEY" -- --plaintext-footer --ctr --aad-prefix log7 --data-page-v2

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
