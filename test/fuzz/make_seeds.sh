#!/usr/bin/env bash
# Seed inputs for a fuzz target, taken from the parquet-testing corpus.
#
#   test/fuzz/make_seeds.sh meta OUTDIR   every file's footer (FileMetaData
#                                         bytes) of at most 16 KiB (the
#                                         target's -max_len) and the bytes at
#                                         offset 4 (the first page header)
#   test/fuzz/make_seeds.sh open OUTDIR   links to the whole files of at most
#                                         SEED_MAX_FILE bytes (64 KiB: the
#                                         targets' -max_len; a larger file cut
#                                         there would lose its footer)
#   test/fuzz/make_seeds.sh rows OUTDIR   the same
#   test/fuzz/make_seeds.sh pidx OUTDIR   the same (page indexes and seeks)
#   test/fuzz/make_seeds.sh variant OUTDIR  the variant/ pairs as fuzz_variant
#                                         reads them: 2-byte metadata length,
#                                         metadata, value
#   test/fuzz/make_seeds.sh recover OUTDIR  sensor-logger files in checkpoint
#                                         mode, closed and cut (needs
#                                         build/host/sensor_logger or
#                                         $SENSOR_LOGGER)
#   test/fuzz/make_seeds.sh jsonl OUTDIR  JSON lines for fuzz_jsonl's fixed
#                                         schemas (first byte picks one), and
#                                         a schema text (no corpus needed)
#   test/fuzz/make_seeds.sh where OUTDIR  --where expressions over fuzz_where's
#                                         schema (no corpus needed)
#   test/fuzz/make_seeds.sh snappy OUTDIR  SNAPPY streams for fuzz_snappy (first
#                                         byte 0): every tag kind, short and
#                                         long offsets; plain data (first
#                                         byte 1) to compress (no corpus
#                                         needed)
#   test/fuzz/make_seeds.sh keytools OUTDIR  key metadata, NUL, side file:
#                                         the corpus's external key material
#                                         (each reference) and internal
#                                         material made from it
#
# Reads the corpus from $PARQUET_TESTING_DIR (default ../shared/parquet-testing).
set -eu
name=$1
out=$2
corpus=${PARQUET_TESTING_DIR:-../shared/parquet-testing}
[ -d "$corpus" ] || { echo "make_seeds.sh: no corpus at $corpus" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"

# Little-endian u32 at byte offset $2 of file $1.
le32() {
    od -An -tu4 -j "$2" -N4 --endian=little "$1" | tr -d ' '
}

if [ "$name" = variant ]; then
    n=0
    for m in "$corpus"/variant/*.metadata; do
        v=${m%.metadata}.value
        [ -f "$v" ] || continue
        ml=$(stat -c %s "$m")
        { printf "\\$(printf '%03o' $((ml & 255)))\\$(printf '%03o' $((ml >> 8)))"; cat "$m" "$v"; } \
            >"$out/$(basename "${m%.metadata}")"
        n=$((n + 1))
    done
    echo "seeds for fuzz_variant: $n inputs in $out"
    exit 0
fi

if [ "$name" = recover ]; then
    # sensor-logger files in checkpoint mode (small pages, row groups and
    # checkpoint intervals), closed and cut at a spread of lengths; the
    # first byte is fuzz_recover's medium mode and check (each of the 24
    # pairs in turn)
    logger=${SENSOR_LOGGER:-build/host/sensor_logger}
    [ -x "$logger" ] || { echo "make_seeds.sh: no sensor logger at $logger" >&2; exit 1; }
    tmp=$(mktemp -d)
    n=0
    # (small: every input is recovered twice and resumed)
    for cfg in "24 12 4 128" "48 1000 12 256"; do
        set -- $cfg
        f=$tmp/log_$1_$2.parquet
        "$logger" --rows "$1" --row-group-rows "$2" --checkpoint-rows "$3" --page-size "$4" "$f" >/dev/null
        len=$(stat -c %s "$f")
        for k in $(seq 1 16); do
            cut=$((len * k / 16))
            { printf "\\$(printf '%03o' $((n % 24)))"; head -c "$cut" "$f"; } >"$out/log_$1_$2_$k"
            n=$((n + 1))
        done
    done
    rm -rf "$tmp"
    echo "seeds for fuzz_recover: $n inputs in $out"
    exit 0
fi

if [ "$name" = keytools ]; then
    side="$corpus/data/_KEY_MATERIAL_FOR_external_key_material_java.parquet.encrypted.json"
    [ -f "$side" ] || { echo "make_seeds.sh: no $side" >&2; exit 1; }
    for ref in footerKey columnKey0 columnKey1; do
        { printf '{"keyMaterialType":"PKMT1","internalStorage":false,"keyReference":"%s"}' "$ref";
          printf '\000'; cat "$side"; } >"$out/external-$ref"
    done
    # the footer's material stored internally (the JSON string unescaped,
    # "internalStorage":true added)
    sed -e 's/^{"footerKey":"{//' -e 's/}",".*//' -e 's/\\"/"/g' "$side" |
        { printf '{"internalStorage":true,'; cat; printf '}'; } >"$out/internal-footer"
    echo "seeds for fuzz_keytools: 4 inputs in $out"
    exit 0
fi

if [ "$name" = where ]; then
    n=0
    for e in 'id >= 5 and id < 10' 'not (s = "a" or s is null) and x > -1.5e3' \
        'ts >= "2024-06-01T00:00:00Z" and u in ("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")' \
        'x = nan or f != -inf or h <= 1.5' 'dec = "12.3400" or bd in (1, "-0.5") or d32 <> 3' \
        'u64 > 18446744073709551615 or i8 = -128 or ok = true' 'b = "AP8=" and d < "2024-02-29"' \
        '`g`.a is not null and g.`my col`.z not in ("x", "y")' 'i96 = "2024-01-01T12:34:56.123456789"' \
        '((((not id = 1))))' 'l.list.element = 1' 'iv is null' 'id = 300 and' 'x > "s"'; do
        printf '%s' "$e" >"$out/$n"
        n=$((n + 1))
    done
    echo "seeds for fuzz_where: $n inputs in $out"
    exit 0
fi

if [ "$name" = snappy ]; then
    # mode byte 0, then a stream: varint length, elements
    # literal "abcdefgh" + copy-1 offset 8 length 11 + copy-2 offset 3 length 64
    # + copy-4 offset 1 length 20, 103 bytes
    printf '\000\147\034abcdefgh\035\010\376\003\000\117\001\000\000\000' >"$out/tags"
    # literal of 70 bytes through tag 60 (one length byte), then copy-2
    # offset 70 length 64 twice: 198 bytes
    { printf '\000\306\001\360\105'; head -c 70 /dev/zero | tr '\0' 'q'; printf '\376\106\000\376\106\000'; } >"$out/long-literal"
    # short offsets 1..7 after a 7-byte literal, each a copy-2 of 40 bytes
    { printf '\000\237\002\030abcdefg'; for o in 1 2 3 4 5 6 7; do printf "\\236\\$(printf '%03o' $o)\\000"; done; } >"$out/short-offsets"
    printf '\001%s' 'sensor-7;temp=21.5;sensor-7;temp=21.6;sensor-8;temp=21.5;aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' >"$out/plain"
    echo "seeds for fuzz_snappy: 4 inputs in $out"
    exit 0
fi

if [ "$name" = jsonl ]; then
    printf '%s\n' \
        '{"id":1,"s":"h\u00e9\u00ff\ud83d\ude00","d":"2024-02-29","ts":"1677-09-21T00:12:43.145224192Z","t":"23:59:59.999999","tm":"00:00:00.001","i96":"2024-01-01T12:34:56.123456789","f":1e-45,"x":"-Infinity","h":"NaN","u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","iv":{"months":1,"days":2,"millis":3},"dec":"-12345678901234.5678","bd":"0.0000000001","d32":"-9999999.99","u64":18446744073709551615,"i8":-128,"b":"AP8=","ok":true,"nul":null}' \
        '{"id":-9223372036854775808,"s":null,"d":"-0001-12-31","ts":-1,"f":"NaN","x":-0,"dec":"0"}' \
        >"$out/flat"
    { printf '\001'; printf '%s\n' \
        '{"l":[{"a":1,"m":[{"key":"k","value":[1,2,3]},{"key":"n","value":null}]},null],"r":[1,2],"k":[{"key":5,"value":null}],"s":{"t":{"u":[{"v":true},{"v":null}]}}}' \
        '{"l":[],"r":[],"k":null,"s":{"t":null}}' '{"s":{}}' '[1,{"a":[]}]'; } >"$out/nested"
    printf 'message m {\n  optional group g (LIST) {\n    repeated group list {\n      optional binary element (STRING) = 3;\n    }\n  }\n  required fixed_len_byte_array(4) x (DECIMAL(9,2));\n}\n' >"$out/schema"
    echo "seeds for fuzz_jsonl: 3 inputs in $out"
    exit 0
fi

n=0
while IFS= read -r -d '' f; do
    rel=${f#"$corpus"/}
    id=$(printf '%s' "$rel" | tr '/ ' '__')
    size=$(stat -c %s "$f")
    case "$name" in
    meta)
        [ "$size" -ge 12 ] || continue
        magic=$(tail -c 4 "$f")
        if [ "$magic" = PAR1 ]; then
            flen=$(le32 "$f" $((size - 8)))
            if [ "$flen" -gt 0 ] && [ "$flen" -le $((size - 12)) ] && [ "$flen" -le 16384 ]; then
                tail -c $((flen + 8)) "$f" | head -c "$flen" >"$out/footer-$id"
                n=$((n + 1))
            fi
        fi
        # the first page header starts right after the leading magic
        if [ "$(head -c 4 "$f")" = PAR1 ]; then
            tail -c +5 "$f" | head -c 4096 >"$out/page-$id"
            n=$((n + 1))
        fi
        ;;
    open | rows | pidx)
        [ "$size" -le "${SEED_MAX_FILE:-65536}" ] || continue
        ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$out/$id"
        n=$((n + 1))
        ;;
    *)
        echo "make_seeds.sh: unknown target '$name'" >&2
        exit 2
        ;;
    esac
done < <(find "$corpus" -type f \( -name '*.parquet' -o -name '*.parquet.encrypted' \) -print0 | sort -z)
echo "seeds for fuzz_$name: $n inputs in $out"
