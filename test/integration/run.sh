#!/usr/bin/env bash
# µparquet used the ways a project outside this tree uses it (the
# check-integration stage, test/integration/integration.mk). Every consumer
# is built from scratch in a temporary directory outside the repository:
#
#   readme     the README's snippets marked "tested" are lines of these
#              consumers (so they compile, link and run here)
#   list       port/sources.txt names every library source there is; the
#              sensor logger calls exactly the logger row's entry points
#              (size_refs.sh); upq-everything.h is the default full build
#   headers    the installed headers are uparquet.h's set (the adapter,
#              private.h and config_build.h aside), hold no internals, and
#              each compiles alone as C99 and C++ with -pedantic
#   planned    examples/integration/planned.c, written from docs/ alone: a
#              checkpoint logger cut and recovered, row-wise reading and a
#              predicate scan of files DuckDB and arrow-rs wrote and of the
#              recovered log, every arena sized as docs/memory.md says; its
#              answers against DuckDB's, and the jobs with a planner (the
#              logger, row-wise reading) must fit on the first try
#   quickstart the README's two complete programs built from its text with
#              pkg-config and -Wall -Wextra -pedantic -Werror and run: the
#              logger cut, recovered and resumed (DuckDB reads every row as
#              logged), the predicate sum on files DuckDB and arrow-rs wrote
#              and on the recovered log, against DuckDB's answers
#   pkg-config make install PREFIX=tmp; examples/integration/consumer.c built
#              with only `pkg-config --cflags --libs uparquet` (encryption
#              on) reads an encrypted corpus file, values checked against the
#              generator of those files, and writes a file that DuckDB reads
#              back with the values written
#   conflict   examples/integration/conflict.c (UPQ_WITH_CRYPTO 0 against a
#              library built with 1) must not compile, and must say why
#   cmake      the same consumer through find_package(uparquet) against the
#              install (the sources' ways, add_subdirectory and FetchContent of
#              the root CMakeLists.txt, Meson and the Make fragment: builds.sh)
#   firmware   examples/integration/firmware, a plain Makefile Cortex-M4
#              project taking the library from port/uparquet.mk with the
#              logger set, logs 3000 rows under qemu-system-arm semihosting;
#              the file is byte for byte the host sensor logger's, DuckDB
#              reads the rows; the library's flash in its image equals the
#              `make size` logger row's (both maps read the same way)
#   cortex-m4  make install TARGET=cortex-m4 UPQ_SET=logger: the options and
#              target recorded in config_build.h and uparquet.pc
#   aarch64    make CROSS_COMPILE=aarch64-linux-gnu- install PREFIX=tmp; the
#              consumer built with that prefix's gcc and pkg-config runs
#              under qemu-aarch64 and passes; DuckDB reads its file
#
# Environment (from integration.mk): TOP, MAKE, HOST_DIR, HOST_CC, CM4_PREFIX,
# A64_PREFIX, SENSOR, NODE,
# SIZE_DIR, QEMU_SYSTEM_ARM, QEMU_AARCH64, PARQUET_TESTING_DIR,
# INTEGRATION_KEEP=1 keeps the temporary directory. Ends with
# "N passed, N failed"; exit status 1 when anything failed. A missing tool
# is a failure, not a skip.
set -uo pipefail

top=${TOP:?}
make=${MAKE:-make}
host_dir=$top/${HOST_DIR:-build/host}
node=${NODE:-node}
corpus=${PARQUET_TESTING_DIR:?}
qemu_arm=${QEMU_SYSTEM_ARM:-qemu-system-arm}
qemu_a64=${QEMU_AARCH64:-qemu-aarch64 -L /usr/aarch64-linux-gnu}
size_dir=$top/${SIZE_DIR:-build/size}
ex=$top/examples/integration
cc=${HOST_CC:-cc}
cm4=${CM4_PREFIX:-arm-none-eabi-}
a64_prefix=${A64_PREFIX:-aarch64-linux-gnu-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/upq-integration.XXXXXX")
[ "${INTEGRATION_KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
# shellcheck source=test/integration/common.sh
. "$top/test/integration/common.sh"

# headers DIR: the installed headers are the API: uparquet.h includes every
# one of them but the adapter (posix.h), the layouts public structs embed
# (private.h) and the build's options (config_build.h); none of the library's
# internals (Thrift, encoders, decoders) is among them (the CRC-32 is API:
# checksum.h, for adapters that frame their own records); and each compiles
# on its own as C99 and C++ under -Wall -Wextra -pedantic -Werror.
headers() {
    local d=$1 h name bad="" incl
    incl=$(sed -n 's/^#include "\([a-z_]*\.h\)".*/\1/p' "$d/uparquet.h" | sort)
    for h in "$d"/*.h; do
        name=$(basename "$h")
        case $name in uparquet.h | posix.h | private.h | config_build.h) continue ;; esac
        grep -qx "$name" <<<"$incl" || bad="$bad $name"
    done
    for name in $incl; do [ -f "$d/$name" ] || bad="$bad $name(missing)"; done
    if [ -z "$bad" ]; then
        ok "headers: uparquet.h includes the $(echo "$incl" | wc -w) installed API headers"
    else
        fail "headers: not the set uparquet.h includes:$bad"
    fi
    if grep -lE '(upq_tdec_init|upq_tenc_run|upq_encode_values|upq_values_init|upq_rle_init) *\(' "$d"/*.h >"$tmp/internal.txt"; then
        fail "headers: internals installed: $(xargs -n1 basename <"$tmp/internal.txt" | tr '\n' ' ')"
    else
        ok "headers: no Thrift, encoder or decoder functions among the installed headers"
    fi
    bad=""
    for h in "$d"/*.h; do
        name=$(basename "$h")
        printf '#include "uparquet/%s"\ntypedef int upq_header_check;\n' "$name" >"$tmp/hdr.c"
        $cc -std=c99 -Wall -Wextra -pedantic -Werror -I"$d/.." -c "$tmp/hdr.c" -o /dev/null >"$tmp/hdr.log" 2>&1 || bad="$bad $name(C)"
        c++ -Wall -Wextra -pedantic -Werror -I"$d/.." -x c++ -c "$tmp/hdr.c" -o /dev/null >>"$tmp/hdr.log" 2>&1 || bad="$bad $name(C++)"
    done
    if [ -z "$bad" ]; then
        ok "headers: each of the $(ls "$d"/*.h | wc -l) compiles alone as C99 and C++ (-Wall -Wextra -pedantic -Werror)"
    else
        fail "headers: do not compile alone:$bad"
    fi
}

# quickstarts DIR: the README's complete programs (blocks after a
# "<!-- quickstart: NAME -->" line), built as its text says with pkg-config and
# -Wall -Wextra -pedantic -Werror, then run: the logger logs, is cut, is
# recovered and resumed, and DuckDB reads every row back as the logger made
# it; the predicate sum answers as DuckDB does on files DuckDB and arrow-rs
# wrote, and on the recovered log.
quickstarts() {
    local d=$1 name got want n=0
    mkdir -p "$d"
    if ! "$node" -e '
        const fs = require("fs");
        const [readme, out] = process.argv.slice(1);
        const md = fs.readFileSync(readme, "utf8");
        let n = 0;
        for (const m of md.matchAll(/<!-- quickstart: (\S+) -->\s*```c\n([\s\S]*?)```/g)) {
            fs.writeFileSync(out + "/" + m[1], m[2]);
            n++;
        }
        if (n !== 2) { console.log(`${n} quick starts in README.md, want 2`); process.exit(1); }' \
            "$top/README.md" "$d" >"$d/extract.log" 2>&1; then
        fail "quickstart: $(cat "$d/extract.log")"
        return
    fi
    for name in logger sum; do
        if run "quickstart: $name.c builds warning-free (-Wall -Wextra -pedantic)" "$d/$name.build.log" bash -c \
            "cd '$d' && $cc -std=c99 -Wall -Wextra -pedantic -Werror \$(pkg-config --cflags uparquet) $name.c -o $name \$(pkg-config --libs uparquet)"; then
            ok "quickstart: $name.c builds warning-free with pkg-config (-Wall -Wextra -pedantic -Werror)"
            n=$((n + 1))
        fi
    done
    [ "$n" = 2 ] || return
    (cd "$d" && ./logger log.parquet 1050 cut && cp log.parquet precut.parquet && ./logger log.parquet recover &&
        cp log.parquet cut.parquet && ./logger log.parquet 500) >"$d/logger.log" 2>&1
    want=$'1050 rows, 1000 durable \(cut\)\nrecovered 1000 rows, [0-9]+ bytes\nresumed after 1000 rows\n1500 rows, 1500 durable'
    if [[ $(cat "$d/logger.log") =~ ^$want$ ]]; then
        ok "quickstart: logger cut at 1050 rows, recovered 1000, resumed to 1500"
    else
        fail "quickstart: logger printed: $(tr '\n' '|' <"$d/logger.log")"
    fi
    # A reader given the cut file before its recovery is told what finishes it.
    got=$(cd "$d" && ./sum precut.parquet celsius ts 0 2>&1)
    if [ $? -ne 0 ] && [[ $got == *"input truncated: no PAR1 magic at the end of the file: a checkpoint-mode file cut before its close; upq_recover() or \`upq recover FILE\` finishes it"* ]]; then
        ok "quickstart: reading the cut log before recovery: UPQ_ERR_TRUNCATED, and the message names upq_recover"
    else
        fail "quickstart: reading the cut log before recovery printed: $got"
    fi
    # Every row as the logger makes it: ts one second apart from 1717200000000 ms,
    # celsius 20 + (row % 50) / 10, null in every tenth row.
    for f in cut:1000 log:1500; do
        got=$("$node" "$top/test/interop/duckdb_sql.mjs" \
            "SELECT count(*), count(*) FILTER (WHERE epoch_ms(ts) = 1717200000000 + file_row_number * 1000 AND
                    CASE WHEN file_row_number % 10 = 9 THEN celsius IS NULL
                         ELSE abs(celsius - (20 + (file_row_number % 50) / 10)) < 1e-5 END)
             FROM read_parquet('$d/${f%%:*}.parquet', file_row_number = true)" 2>&1)
        if [ "$got" = "[\"${f#*:}\",\"${f#*:}\"]" ]; then
            ok "quickstart: DuckDB reads the logger's ${f%%:*}.parquet: ${f#*:} rows, each as logged"
        else
            fail "quickstart: DuckDB on the logger's ${f%%:*}.parquet: $got, want ${f#*:} rows as logged"
        fi
    done
    # The sum over DuckDB's and arrow-rs' files, and over the recovered log.
    if ! "$node" "$top/test/integration/quickstart_files.mjs" "$d/files" >"$d/queries.txt" 2>"$d/files.log"; then
        fail "quickstart: the DuckDB and arrow-rs files: $(tail -3 "$d/files.log")"
        return
    fi
    for x in 1717200300000 1717200900000; do
        got=$("$node" "$top/test/interop/duckdb_sql.mjs" \
            "SELECT coalesce(sum(celsius), 0)::DOUBLE, count(celsius) FROM '$d/cut.parquet' WHERE epoch_ms(ts) > $x" 2>&1)
        [[ $got =~ ^\[([-0-9.e+]+),\"([0-9]+)\"\]$ ]] && echo "$d/cut.parquet celsius ts $x ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}" >>"$d/queries.txt"
    done
    while read -r f a b x s c; do
        got=$(cd "$d" && ./sum "$f" "$a" "$b" "$x" 2>&1)
        # a float column's sum is compared to within its rounding, the others exactly
        if [[ $got =~ ^sum\ ([-0-9.e+]+),\ count\ ([0-9]+)$ ]] && [ "${BASH_REMATCH[2]}" = "$c" ] &&
           awk -v a="${BASH_REMATCH[1]}" -v b="$s" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-3 * (b < 0 ? -b : b) + 1e-9) }'; then
            ok "quickstart: sum $(basename "$f") $a where $b > $x: $got, as DuckDB"
        else
            fail "quickstart: sum $(basename "$f") $a where $b > $x: $got; DuckDB: sum $s, count $c"
        fi
    done <"$d/queries.txt"

    # The program written from docs/ alone: every arena as docs/memory.md sizes it.
    if run "planned: examples/integration/planned.c builds warning-free" "$d/planned.build.log" bash -c \
        "cd '$d' && $cc -std=c99 -Wall -Wextra -pedantic -Werror \$(pkg-config --cflags uparquet) '$ex/planned.c' -o planned \$(pkg-config --libs uparquet)"; then
        (cd "$d" && ./planned files) >"$d/planned.txt" 2>&1
        "$node" "$top/test/integration/planned_check.mjs" "$d/files" "$d/planned.txt" >"$d/planned.check" 2>&1
        while IFS= read -r line; do
            case $line in
            "ok: "*) ok "planned: ${line#ok: }" ;;
            "FAIL: "*) fail "planned: ${line#FAIL: }" ;;
            esac
        done <"$d/planned.check"
        grep -q '^planned: [0-9]* passed' "$d/planned.check" || fail "planned: no verdict: $(tail -3 "$d/planned.check")"
    fi
}

echo "integration: working in $tmp"

# ---- the lists ---------------------------------------------------------------------
listed=$(awk '!/^#/ && NF == 2 { print $2 }' "$top/port/sources.txt" | sort)
present=$(cd "$top" && ls core/*/*.c port/*.c port/neon/*.c port/x86/*.c codecs/upq_*.c | sort)
if [ "$listed" = "$present" ]; then
    ok "list: port/sources.txt names the $(echo "$listed" | wc -l) library sources"
else
    fail "list: port/sources.txt and the tree differ: $(diff <(echo "$listed") <(echo "$present") | grep '^[<>]' | tr '\n' ' ')"
fi

if "${cm4}gcc" -std=c99 -Os -mcpu=cortex-m4 -mthumb -ffreestanding -fno-builtin -I"$top/core/include" \
        -I"$top/port" -I"$top/port/config" -DUPQ_CONFIG_FILE='"upq-logger.h"' \
        -c "$top/examples/sensor_logger/sensor_logger.c" -o "$tmp/sensor_logger.o" 2>"$tmp/sl.log"; then
    calls=$("${cm4}nm" -u "$tmp/sensor_logger.o" | awk '$2 ~ /^upq_/ { print $2 }' | sort)
    rows=$(sed -n '/^logger="/,/"$/p' "$top/test/freestanding/size_refs.sh" | tr -d '"' | sed 's/^logger=//' |
        tr -s ' \n' '\n' | grep . | sort)
    if [ "$calls" = "$rows" ]; then
        ok "list: the logger row's entry points are the sensor logger's $(echo "$calls" | wc -l) calls"
    else
        fail "list: size_refs.sh's logger list and the sensor logger's calls differ: $(diff <(echo "$rows") <(echo "$calls") | grep '^[<>]' | tr '\n' ' ')"
    fi
else
    cat "$tmp/sl.log"
    fail "list: the sensor logger does not compile with the logger set"
fi

# upq-everything.h must say what a default build with every package says.
cfg_full=$tmp/full.h cfg_every=$tmp/every.h
# shellcheck disable=SC2086
full_defs=$(printf '%s\n' ${CODEC_DEFS:-} | grep '^-DUPQ_WITH_')
# shellcheck disable=SC2086
if bash "$top/port/config/config_build.sh" "$cfg_full" gcc $full_defs -I"$top/core/include" &&
   bash "$top/port/config/config_build.sh" "$cfg_every" gcc -I"$top/core/include" -I"$top/port/config" \
        -DUPQ_CONFIG_FILE='"upq-everything.h"' &&
   diff -q "$cfg_full" "$cfg_every" >/dev/null; then
    ok "list: upq-everything.h gives the options of the default build with every package"
else
    fail "list: upq-everything.h and the default full build differ: $(diff "$cfg_full" "$cfg_every" | grep '^[<>] #define' | tr '\n' ' ')"
fi

# The snippets of README.md and docs/*.md marked "tested" are lines of the
# consumers built below (leading blanks aside), so what they show is what
# compiles and runs.
if got=$("$node" -e '
    const fs = require("fs"), path = require("path");
    const [top] = process.argv.slice(1);
    const norm = (t) => t.split("\n").map((l) => l.trim()).join("\n").trim();
    const docs = fs.readdirSync(path.join(top, "docs")).filter((f) => f.endsWith(".md")).map((f) => "docs/" + f);
    const md = ["README.md", ...docs].map((f) => fs.readFileSync(path.join(top, f), "utf8")).join("\n");
    let n = 0;
    const bad = [];
    for (const m of md.matchAll(/<!-- tested: (\S+) -->\s*```[a-z]*\n([\s\S]*?)```/g)) {
        n++;
        const src = norm(fs.readFileSync(path.join(top, m[1]), "utf8"));
        if (!src.includes(norm(m[2]))) bad.push(`${m[1]}: ${norm(m[2]).split("\n")[0]}`);
    }
    if (bad.length || n === 0) { console.log(`${n} snippets; not in their files: ${bad.join("; ")}`); process.exit(1); }
    console.log(n);' "$top" 2>&1); then
    ok "readme: the $got snippets of README.md and docs/ marked tested are lines of the files they name"
else
    fail "readme: $got"
fi

# Every relative link of README.md, CHANGELOG.md and docs/ leads to a file that is there.
if got=$("$node" -e '
    const fs = require("fs"), path = require("path");
    const [top] = process.argv.slice(1);
    const files = ["README.md", "CHANGELOG.md", ...fs.readdirSync(path.join(top, "docs")).filter((f) => f.endsWith(".md")).map((f) => "docs/" + f)];
    let n = 0;
    const bad = [];
    for (const f of files)
        for (const m of fs.readFileSync(path.join(top, f), "utf8").matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
            if (/^[a-z]+:/.test(m[1])) continue;
            n++;
            if (!fs.existsSync(path.join(top, path.dirname(f), m[1]))) bad.push(`${f}: ${m[1]}`);
        }
    if (bad.length) { console.log(`broken: ${bad.join(", ")}`); process.exit(1); }
    console.log(n);' "$top" 2>&1); then
    ok "readme: the $got relative links of README.md, CHANGELOG.md and docs/ lead to files"
else
    fail "readme: $got"
fi

# ---- host: make install, pkg-config ---------------------------------------------------
prefix=$tmp/prefix
if run "install: make install PREFIX=$prefix" "$tmp/install.log" $make -C "$top" --no-print-directory install PREFIX="$prefix"; then
    ok "install: headers, libuparquet.a, uparquet.pc and the CMake package in $prefix"
    export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
    mkdir -p "$tmp/pc"
    cp "$ex/consumer.c" "$ex/conflict.c" "$tmp/pc/"
    # shellcheck disable=SC2046
    if run "pkg-config: consumer builds" "$tmp/pc/build.log" bash -c \
        "cd '$tmp/pc' && $cc -std=c99 -Wall -Wextra -pedantic -Werror \$(pkg-config --cflags uparquet) consumer.c -o consumer \$(pkg-config --libs uparquet)"; then
        (cd "$tmp/pc" && ./consumer "$corpus" out.parquet) >"$tmp/pc/run.log" 2>&1
        consumer_passed "pkg-config: consumer" "$tmp/pc/run.log"
        duckdb_written "pkg-config" "$tmp/pc/out.parquet"
    fi
    if (cd "$tmp/pc" && $cc -std=c99 $(pkg-config --cflags uparquet) -c conflict.c -o conflict.o) >"$tmp/pc/conflict.log" 2>&1; then
        fail "conflict: a program defining UPQ_WITH_CRYPTO 0 compiled against a library built with 1"
    elif grep -q "error: #error \"uparquet: UPQ_WITH_CRYPTO differs from the installed library's UPQ_WITH_CRYPTO 1" "$tmp/pc/conflict.log"; then
        ok "conflict: UPQ_WITH_CRYPTO 0 against the library's 1 stops the compiler: $(grep -o 'uparquet: UPQ_WITH_CRYPTO differs[^"]*' "$tmp/pc/conflict.log" | head -1)"
    else
        cat "$tmp/pc/conflict.log"
        fail "conflict: the compile failed without the message"
    fi

    # ---- the installed headers: the API and nothing else ------------------------------------
    headers "$prefix/include/uparquet"

    # ---- the README's quick starts, as a reader copies them -----------------------------
    quickstarts "$tmp/qs"

    # ---- CMake, find_package --------------------------------------------------------
    mkdir -p "$tmp/cmake-find"
    cp "$ex/consumer.c" "$ex/CMakeLists.txt" "$tmp/cmake-find/"
    if run "cmake find_package: configure and build" "$tmp/cmake-find/build.log" bash -c \
        "cmake -S '$tmp/cmake-find' -B '$tmp/cmake-find/b' -DCMAKE_C_COMPILER='$cc' -DCMAKE_PREFIX_PATH='$prefix' && cmake --build '$tmp/cmake-find/b'"; then
        if grep -q "uparquet 0.*encryption 1" "$tmp/cmake-find/build.log"; then
            ok "cmake find_package: the package reports its options (UPARQUET_WITH_CRYPTO 1)"
        else
            fail "cmake find_package: no UPARQUET_WITH_CRYPTO 1 from the package"
        fi
        (cd "$tmp/cmake-find" && ./b/consumer "$corpus" out.parquet) >"$tmp/cmake-find/run.log" 2>&1
        consumer_passed "cmake find_package: consumer" "$tmp/cmake-find/run.log"
        duckdb_written "cmake find_package" "$tmp/cmake-find/out.parquet"
    fi
fi

# ---- firmware: a plain Makefile project with port/uparquet.mk, logger set -------------
fw=$tmp/firmware
mkdir -p "$fw"
cp "$ex/firmware/Makefile" "$ex/firmware/main.c" "$fw/"
rows=3000
if run "firmware: the fragment project builds" "$fw/build.log" $make -C "$fw" --no-print-directory -j2 UPQ_DIR="$top" CROSS="$cm4"; then
    ok "firmware: logger.elf built from port/uparquet.mk (UPQ_SET=logger): $(grep -A1 'text' "$fw/build.log" | tail -1 | awk '{ print $1 " text, " $2 " data, " $3 " bss" }')"
    if (cd "$fw" && timeout 300 $qemu_arm -M mps2-an386 -nographic -monitor none -serial none \
            -semihosting-config enable=on,target=native -kernel logger.elf -append "$rows $fw/log.parquet") \
            </dev/null >"$fw/run.log" 2>&1 && grep -q "^rows: $rows\$" "$fw/run.log"; then
        ok "firmware: logged $rows rows under qemu-system-arm"
        # The same readings as the host sensor logger's (same seed and
        # device). Not the same bytes: the logger set leaves more of the
        # 16 KiB arena to the staging than the default build, so the column
        # regions are planned otherwise.
        "$SENSOR" --rows $rows "$fw/host.parquet" >"$fw/host.log" 2>&1
        got=$("$node" "$top/test/interop/duckdb_sql.mjs" \
            "SELECT count(*), count(DISTINCT device), min(ts) < max(ts), count(ch0) > 0,
                    (SELECT count(*) FROM (SELECT * FROM '$fw/log.parquet' EXCEPT ALL SELECT * FROM '$fw/host.parquet')),
                    (SELECT count(*) FROM (SELECT * FROM '$fw/host.parquet' EXCEPT ALL SELECT * FROM '$fw/log.parquet'))
             FROM '$fw/log.parquet'" 2>&1)
        if [ "$got" = "[\"$rows\",\"1\",true,true,\"0\",\"0\"]" ]; then
            ok "firmware: DuckDB reads the file back: $rows rows, one device, time ascending, row for row the host sensor logger's"
        else
            fail "firmware: DuckDB read $got"
        fi
    else
        cat "$fw/run.log"
        fail "firmware: the logger did not finish under qemu"
    fi

    # Flash of the library's own objects, text + rodata + data (and
    # .ARM.exidx, as size_report.mjs counts it), read the same way from both maps: input sections of library objects (libgcc helpers
    # and the rest of the image apart). Merged string constants
    # (.rodata.*.str*) are counted apart: the linker keeps one copy of a
    # string both the library and the application hold, and the map then
    # shows the library's as 0 bytes in the firmware. The row's own code is
    # the library's plus the libgcc helpers it calls.
    flash_of() { # MAP OBJECT-REGEX SECTION-REGEX
        awk -v re="$2" -v sre="$3" '
            function hex(h,   v, i) { v = 0; h = tolower(substr(h, 3))
                for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
                return v }
            function count() { if (sec ~ /^[.](text|rodata|data|ARM[.]exidx)/ && sec ~ sre && f ~ re) total += hex(sz); sec = "" }
            /^Linker script and memory map/ { on = 1; next }
            !on { next }
            /^ [.][^ ]+$/ { sec = $1; next }
            /^ [.][^ ]+ +0x[0-9a-f]+ +0x[0-9a-f]+ / { sec = $1; sz = $3; f = $4; count(); next }
            /^ +0x[0-9a-f]+ +0x[0-9a-f]+ / && sec != "" { sz = $2; f = $3; count(); sec = ""; next }
            END { print total + 0 }' "$1"
    }
    row_map=$size_dir/cortex-m4/logger/image.map
    row_lib='libuparquet[.]a[(]' fw_lib='obj/upq/(core|codecs|port/(mem|neon/))'
    str='[.]str[0-9]'
    if [ -f "$row_map" ]; then
        code_row=$(flash_of "$row_map" "$row_lib" '.')
        str_row=$(flash_of "$row_map" "$row_lib" "$str")
        str_fw=$(flash_of "$fw/logger.map" "$fw_lib" "$str")
        code_fw=$(flash_of "$fw/logger.map" "$fw_lib" '.')
        helpers=$(flash_of "$row_map" 'libgcc[.]a' '.')
        harness=$(flash_of "$row_map" 'image_main[.]o|refs[.]o' '.')
        row=$(( $(flash_of "$row_map" '.' '.') - harness ))
        if [ "$code_row" -gt 0 ] && [ $((code_row - str_row)) = $((code_fw - str_fw)) ] && [ "$str_fw" -le "$str_row" ]; then
            ok "firmware: the library's flash is the make size logger row's: $code_fw bytes in the firmware, $code_row in the row's image ($((str_row - str_fw)) bytes of strings merged with the firmware's own); the row, $row bytes, adds $helpers bytes of libgcc helpers"
        else
            fail "firmware: the library's flash: $code_fw bytes ($str_fw of strings) in the firmware, $code_row ($str_row of strings) in the make size logger row's image"
        fi
    else
        fail "firmware: no $row_map (make size's logger image)"
    fi
fi

# ---- cross build by name: an option set for Cortex-M4, installed -------------------------
m4=$tmp/cortex-m4
if run "cortex-m4: make install TARGET=cortex-m4 UPQ_SET=logger" "$tmp/install-m4.log" \
        $make -C "$top" --no-print-directory install TARGET=cortex-m4 UPQ_SET=logger PREFIX="$m4"; then
    cb=$m4/include/uparquet/config_build.h
    if grep -q '^#define UPQ_WITH_CRYPTO 0$' "$cb" && grep -q '^#define UPQ_CRC32_TABLE 0$' "$cb" &&
       [ "$(PKG_CONFIG_PATH=$m4/lib/pkgconfig pkg-config --variable=target uparquet)" = cortex-m4 ] &&
       [ "$(PKG_CONFIG_PATH=$m4/lib/pkgconfig pkg-config --variable=optionset uparquet)" = logger ] &&
       [ "$("${cm4}objdump" -f "$m4/lib/libuparquet.a" | grep -c 'elf32-littlearm')" -gt 0 ]; then
        ok "cortex-m4: installed the logger set's Cortex-M4 library; its config_build.h and uparquet.pc say so"
    else
        fail "cortex-m4: the installed library is not the logger set's for Cortex-M4"
    fi
fi

# ---- cross build by prefix: aarch64 ------------------------------------------------------
a64=$tmp/aarch64
if run "aarch64: make CROSS_COMPILE=aarch64-linux-gnu- install" "$tmp/install-a64.log" \
        $make -C "$top" --no-print-directory CROSS_COMPILE="$a64_prefix" install PREFIX="$a64/prefix"; then
    if grep -q '^#define UPQ_WITH_NEON 1$' "$a64/prefix/include/uparquet/config_build.h"; then
        ok "aarch64: installed, NEON on in its config_build.h"
    else
        fail "aarch64: installed without NEON"
    fi
    mkdir -p "$a64/c"
    cp "$ex/consumer.c" "$a64/c/"
    if run "aarch64: consumer builds" "$a64/c/build.log" bash -c \
        "cd '$a64/c' && PKG_CONFIG_PATH='$a64/prefix/lib/pkgconfig' && export PKG_CONFIG_PATH && \
         ${a64_prefix}gcc -std=c99 -Wall -Wextra -pedantic -Werror \$(pkg-config --cflags uparquet) consumer.c -o consumer \$(pkg-config --libs uparquet)"; then
        (cd "$a64/c" && timeout 300 $qemu_a64 ./consumer "$corpus" out.parquet) >"$a64/c/run.log" 2>&1
        consumer_passed "aarch64: consumer under qemu-aarch64" "$a64/c/run.log"
        duckdb_written "aarch64" "$a64/c/out.parquet"
    fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
