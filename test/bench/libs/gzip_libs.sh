#!/bin/bash
# Builds and runs bench_gzip_libs.c: zlib (codecs/.deps/zlib, -O2 as codecs.mk builds it for
# the host) against libdeflate 1.14 on whole GZIP pages (issue 14). libdeflate is pinned in
# codecs/deps.lock but not in UPQ_DEPS, so fetch it into a directory of your own first:
#   UPQ_DEPS_DIR=/tmp/upq-deps codecs/fetch.sh libdeflate
#   LIBDEFLATE_DIR=/tmp/upq-deps/libdeflate test/bench/libs/gzip_libs.sh [PAGE-BYTES] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
z=${ZLIB_DIR:-$root/codecs/.deps/zlib}
l=${LIBDEFLATE_DIR:?set LIBDEFLATE_DIR to an unpacked libdeflate 1.14 tree}
out=${TMPDIR:-/tmp}/bench_gzip_libs.$$
cc -O2 -I"$z" -I"$l" "$here/bench_gzip_libs.c" \
    "$z"/{adler32,crc32,deflate,inflate,inftrees,inffast,trees,zutil}.c \
    "$l"/lib/{deflate_decompress,gzip_decompress,utils,crc32,adler32}.c "$l"/lib/x86/cpu_features.c \
    -o "$out"
trap 'rm -f "$out"' EXIT
"$out" "${1:-65536}" "${2:-15}"
