#!/usr/bin/env bash
# µparquet through the build systems projects already use (the check-builds
# stage, test/integration/integration.mk). Every consumer is built from
# scratch in a temporary directory outside the repository, from the sources:
#
#   options    port/config/options.py check: zephyr/Kconfig and
#              meson_options.txt are what config.h's list makes, and no option
#              set (port/config/upq-*.h) restates a default of config.h
#   kconfig    zephyr/Kconfig under Debian's python3-kconfiglib: no warning, a
#              symbol per option, and each option set selected in it gives
#              the config_build.h of the set's header (kconfig_check.py)
#   zephyr     the module's zephyr/CMakeLists.txt under a stand-in for
#              Zephyr's zephyr_* functions, the logger set's .config: the
#              library builds for Cortex-M4 and every file gets the -D flags
#              the Kconfig selection says
#   cmake      examples/integration/consumer.c through the root
#              CMakeLists.txt, by add_subdirectory and by FetchContent from a
#              local path (no SOURCE_SUBDIR), encryption on; with
#              add_subdirectory also the FatFs and littlefs adapters
#              (uparquet::fatfs, uparquet::littlefs) against FATFS_DIR and
#              LITTLEFS_DIR (../shared/third_party)
#   meson      the same consumer with the repository as a Meson subproject
#              (Debian's meson), encryption on
#   make       the same consumer from a plain Makefile including
#              port/uparquet.mk (the `everything` set)
# Each consumer reads parquet-testing's encrypted file (values checked in
# the program) and writes a file DuckDB reads back with the values written.
#
# Environment (from integration.mk): TOP, HOST_DIR, HOST_CC, CM4_PREFIX,
# NODE, PARQUET_TESTING_DIR; KCONFIG_PYTHON (a python3 with kconfiglib;
# default: python3 if it has it, else /usr/bin/python3); INTEGRATION_KEEP=1
# keeps the temporary directory. Ends with "N passed, N failed"; exit status
# 1 when anything failed. A missing tool is a failure, not a skip.
set -uo pipefail

top=${TOP:?}
host_dir=$top/${HOST_DIR:-build/host}
node=${NODE:-node}
corpus=${PARQUET_TESTING_DIR:?}
cc=${HOST_CC:-cc}
cm4=${CM4_PREFIX:-arm-none-eabi-}
ex=$top/examples/integration
fatfs_dir=${FATFS_DIR:-$top/../shared/third_party/fatfs/source}
littlefs_dir=${LITTLEFS_DIR:-$top/../shared/third_party/littlefs}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/upq-builds.XXXXXX")
[ "${INTEGRATION_KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
# shellcheck source=test/integration/common.sh
. "$top/test/integration/common.sh"
echo "builds: working in $tmp"
# A compiler's or linker's warnings in a build log. Not make's own: under an
# outer `make -j` a sub-make prints "warning: -jN forced in submake", which
# says nothing about the code.
compiler_warnings() { grep 'warning:' "$1" | grep -Ev '^g?make(\[[0-9]+\])?: warning:'; }
compiler_warns() { compiler_warnings "$1" >/dev/null; }

# ---- the option lists -------------------------------------------------------------
if out=$(python3 "$top/port/config/options.py" check 2>&1); then
    ok "options: $out"
else
    fail "options: $out"
fi

# ---- Zephyr: the Kconfig ----------------------------------------------------------
py=${KCONFIG_PYTHON:-}
if [ -z "$py" ]; then
    for p in python3 /usr/bin/python3; do
        if "$p" -c 'import kconfiglib' 2>/dev/null; then py=$p; break; fi
    done
fi
if [ -z "$py" ]; then
    fail "kconfig: no python3 with kconfiglib (Debian: python3-kconfiglib)"
elif "$py" "$top/test/integration/zephyr/kconfig_check.py" "$top" "$tmp/kconfig" >"$tmp/kconfig.log" 2>&1; then
    ok "kconfig: $(tail -n 1 "$tmp/kconfig.log") (zephyr/Kconfig: every set, host gcc and ${cm4}gcc)"
else
    grep -v '^ok' "$tmp/kconfig.log"
    fail "kconfig: $(tail -n 1 "$tmp/kconfig.log")"
fi

# ---- Zephyr: the module's CMake, logger set, Cortex-M4 ------------------------------
cfg=$tmp/kconfig/logger-arm-none-eabi-gcc.config
cat >"$tmp/cm4.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER ${cm4}gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -Os")
EOF
if [ -f "$cfg" ] && run "zephyr: the module builds (logger set, Cortex-M4)" "$tmp/zephyr.log" bash -c \
        "cmake -S '$top/test/integration/zephyr/shim' -B '$tmp/zephyr' -DUPQ_ROOT='$top' -DDOTCONFIG='$cfg' \
             -DCMAKE_TOOLCHAIN_FILE='$tmp/cm4.cmake' && cmake --build '$tmp/zephyr' -j2"; then
    if compiler_warns "$tmp/zephyr.log"; then
        compiler_warnings "$tmp/zephyr.log" | head -5
        fail "zephyr: the module's build warns"
    elif diff <(grep . "$tmp/zephyr/defs.txt" | sort) <(sort "$tmp/kconfig/logger-arm-none-eabi-gcc.defs") >"$tmp/zephyr.diff"; then
        ok "zephyr: zephyr/CMakeLists.txt builds the logger set's library for Cortex-M4 with the $(grep -c . "$tmp/zephyr/defs.txt") -D flags its Kconfig selection says"
    else
        fail "zephyr: the module's -D flags differ from the Kconfig selection: $(tr '\n' ' ' <"$tmp/zephyr.diff")"
    fi
elif [ ! -f "$cfg" ]; then
    fail "zephyr: no .config from the Kconfig check"
fi

# ---- CMake: the root CMakeLists.txt, add_subdirectory and FetchContent ---------------
for how in subdirectory fetchcontent; do
    d=$tmp/cmake-$how
    mkdir -p "$d"
    cp "$ex/consumer.c" "$ex/CMakeLists.txt" "$d/"
    if [ $how = subdirectory ]; then
        # and the FatFs and littlefs adapters, against their releases
        arg=(-DUPQ_SOURCE_DIR="$top" -DUPQ_FATFS_INCLUDE_DIRS="$fatfs_dir" -DUPQ_LITTLEFS_INCLUDE_DIRS="$littlefs_dir")
    else
        arg=(-DUPQ_FETCH_DIR="$top")
    fi
    if run "cmake $how: configure and build" "$d/build.log" bash -c \
        "cmake -S '$d' -B '$d/b' -DCMAKE_C_COMPILER='$cc' ${arg[*]} -DUPQ_WITH_CRYPTO=ON \
             -DUPQ_DEPS_LIBDIR='$host_dir/deps' && cmake --build '$d/b' -j2"; then
        if [ $how = subdirectory ]; then
            if [ -f "$d/b/uparquet/libuparquet_fatfs.a" ] && [ -f "$d/b/uparquet/libuparquet_littlefs.a" ] &&
               ! compiler_warns "$d/build.log"; then
                ok "cmake: uparquet::fatfs and uparquet::littlefs build against FatFs and littlefs' own headers"
            else
                fail "cmake: the FatFs and littlefs adapters did not build cleanly (log: $d/build.log)"
            fi
        fi
        (cd "$d" && ./b/consumer "$corpus" out.parquet) >"$d/run.log" 2>&1
        consumer_passed "cmake $how (root CMakeLists.txt): consumer" "$d/run.log"
        duckdb_written "cmake $how" "$d/out.parquet"
    fi
done

# ---- Meson: the repository as a subproject -----------------------------------------
d=$tmp/meson
mkdir -p "$d/subprojects"
cp "$ex/consumer.c" "$ex/meson.build" "$d/"
ln -s "$top" "$d/subprojects/uparquet"
if run "meson: setup and compile" "$d/build.log" bash -c \
    "cd '$d' && CC='$cc' meson setup b -Duparquet:with_crypto=enabled -Duparquet:deps_libdir='$host_dir/deps' && meson compile -C b"; then
    (cd "$d" && ./b/consumer "$corpus" out.parquet) >"$d/run.log" 2>&1
    consumer_passed "meson ($(meson --version)), subproject: consumer" "$d/run.log"
    duckdb_written "meson" "$d/out.parquet"
fi

# ---- Make: port/uparquet.mk in a plain Makefile ------------------------------------
d=$tmp/make
mkdir -p "$d"
cp "$ex/consumer.c" "$ex/make/Makefile" "$d/"
if run "make fragment: build" "$d/build.log" make -C "$d" --no-print-directory -j2 UPQ_DIR="$top" \
        UPQ_DEPS_LIBDIR="$host_dir/deps" CC="$cc"; then
    if compiler_warns "$d/build.log"; then
        compiler_warnings "$d/build.log" | head -5
        fail "make fragment: the consumer's build warns (-Wall -Wextra -pedantic)"
    fi
    (cd "$d" && ./consumer "$corpus" out.parquet) >"$d/run.log" 2>&1
    consumer_passed "make fragment (port/uparquet.mk, everything set): consumer" "$d/run.log"
    duckdb_written "make fragment" "$d/out.parquet"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
