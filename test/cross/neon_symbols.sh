#!/usr/bin/env bash
# The NEON kernels are really in a build: every upq_neon_* function declared
# in port/neon/upq_neon.h is defined in the library. A build whose
# UPQ_WITH_NEON silently came out 0 runs the scalar twins only, and its tests
# would pass all the same.
#
#   test/cross/neon_symbols.sh NM LIBRARY [LEFT-OUT...]
#
# LEFT-OUT names kernels the target has no instructions for (upq_neon_crc32_update
# without the ARMv8 CRC32 extension). Prints one line per missing kernel and
# `neon-symbols: N passed, N failed`.
set -u
nm=$1
lib=$2
shift 2
defined=$("$nm" --defined-only "$lib" 2>/dev/null | awk '$2 == "T" { print $3 }')
pass=0
fail=0
for k in $(grep -o 'upq_neon_[a-z0-9_]*(' port/neon/upq_neon.h | tr -d '(' | sort -u); do
    case " $* " in *" $k "*) continue ;; esac
    if grep -qx "$k" <<<"$defined"; then
        pass=$((pass + 1))
    else
        echo "FAIL $k: not defined in $lib"
        fail=$((fail + 1))
    fi
done
echo "neon-symbols: $pass NEON kernels defined in $lib"
echo "neon-symbols: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
