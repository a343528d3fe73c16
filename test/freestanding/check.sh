#!/usr/bin/env bash
# Freestanding checks, run by `make check` (test/freestanding/freestanding.mk
# passes the inputs in FS_* variables):
#
#  - no library object (core/, port/*.c, codecs/upq_*.c), for Cortex-M4 or
#    the host, references a symbol that the library, the packages it was
#    built with, or allow-lib.txt plus the compiler runtime list
#    (allow-rt-<target>.txt) do not provide: no malloc, memcpy, printf...;
#  - the same for the package objects, against allow-deps.txt;
#  - every global symbol the library defines starts with upq_;
#  - the Cortex-M4 library objects hold no writable data (no static state);
#  - the Cortex-M4 library links into a bare image with -nostdlib
#    -nostartfiles, every global upq_ symbol kept.
#
# Prints PASS/FAIL/SKIP per check (offending symbols under a FAIL), then
# "N passed, N failed"; exits non-zero when a check failed.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${FS_OUT:?FS_OUT: output directory}
mkdir -p "$out"

label=freestanding
# shellcheck source=../checks.sh
source "$here/../checks.sh"
skip() { echo "SKIP freestanding: $1"; }

# Allowlist patterns: one per line, # comments.
patterns() { sed -e 's/#.*//' "$@" | awk 'NF { print $1 }'; }

# defined NM FILES...: global symbols defined in the files (objects/archives).
defined() { [ $# -gt 1 ] && "$1" -g --defined-only "${@:2}" 2>/dev/null | awk 'NF >= 3 { print $NF }'; }

# where NM FILE SYM: source lines of FILE (an object with debug info) that
# reference SYM, as "path:line (in function)"; at most five.
where() {
    local nm=$1 file=$2 sym=$3 tools sec off fn loc
    case $file in *.o) ;; *) return 0 ;; esac
    tools=${nm%nm}
    "${tools}objdump" -dr "$file" 2>/dev/null | awk -v s="$sym" '
        /^Disassembly of section / { sec = $4; sub(/:$/, "", sec) }
        /^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn) }
        $2 ~ /^R_/ && ($3 == s || index($3, s "+") == 1 || index($3, s "-") == 1) {
            off = $1; sub(/:$/, "", off); print sec, off, fn }' | head -n 5 |
        while read -r sec off fn; do
            loc=$("${tools}addr2line" -e "$file" -j "$sec" "0x$off" 2>/dev/null)
            case $loc in "" | "??:"*) loc="$sec+0x$off" ;; esac
            echo "at ${loc#"$PWD"/} (in $fn)"
        done
}

# check_undefined TITLE NM "ALLOW FILES" "PROVIDER FILES" FILES...
# Every undefined reference of FILES must be defined by a provider or match
# an allowlist pattern.
check_undefined() {
    local title=$1 nm=$2 allow=$3 providers=$4
    shift 4
    if [ $# -eq 0 ]; then
        skip "$title (nothing built)"
        return
    fi
    local -A have=()
    local s f p ok bad=()
    # shellcheck disable=SC2086
    while read -r s; do have[$s]=1; done < <(defined "$nm" $providers)
    local pats
    # shellcheck disable=SC2086
    mapfile -t pats < <(patterns $allow)
    while read -r f s; do
        [ -n "${have[$s]:-}" ] && continue
        ok=
        for p in "${pats[@]}"; do
            # shellcheck disable=SC2053
            if [[ $s == $p ]]; then
                ok=1
                break
            fi
        done
        if [ -z "$ok" ]; then
            bad+=("${f%:}: $s")
            while read -r l; do [ -n "$l" ] && bad+=("    $l"); done < <(where "$nm" "${f%:}" "$s")
        fi
    done < <("$nm" -A -u "$@" 2>/dev/null | awk 'NF >= 2 { print $1, $NF }')
    if [ ${#bad[@]} -eq 0 ]; then
        pass "$title ($# files)"
    else
        fail "$title: undefined references not provided or allowed" "${bad[@]}"
    fi
}

# check_namespace TITLE NM FILES...: global definitions all start with upq_.
check_namespace() {
    local title=$1 nm=$2
    shift 2
    [ $# -gt 0 ] || { skip "$title (nothing built)"; return; }
    local bad
    mapfile -t bad < <("$nm" -A -g --defined-only "$@" 2>/dev/null |
        awk 'NF >= 3 && $NF !~ /^upq_/ { f = $1; sub(/:[^:]*$/, "", f); print f ": " $NF }')
    if [ ${#bad[@]} -eq 0 ]; then
        pass "$title"
    else
        fail "$title: ${#bad[@]} global symbol(s) without the upq_ prefix" "${bad[@]}"
    fi
}

# check_no_state TITLE NM SIZE FILES...: no .data/.bss bytes, no writable symbols.
check_no_state() {
    local title=$1 nm=$2 size=$3 f
    shift 3
    [ $# -gt 0 ] || { skip "$title (nothing built)"; return; }
    local bad=()
    for f in "$@"; do
        local secs syms
        secs=$("$size" -A "$f" 2>/dev/null | awk '$1 ~ /^\.(data|bss|sdata|sbss)/ && $2 > 0 { printf " %s=%s", $1, $2 }')
        syms=$("$nm" "$f" 2>/dev/null | awk '$(NF-1) ~ /^[bBdDCgGsS]$/ { printf " %s", $NF }')
        [ -z "$secs$syms" ] || bad+=("$f:${secs}${syms:+ (symbols:$syms)}")
    done
    if [ ${#bad[@]} -eq 0 ]; then
        pass "$title ($# objects)"
    else
        fail "$title: writable data in ${#bad[@]} object(s)" "${bad[@]}"
    fi
}

# check_image: links the Cortex-M4 library into a bare image.
check_image() {
    local title="Cortex-M4 library links into a bare -nostdlib image"
    local cc=${FS_CM4_CC:?} nm=${FS_CM4_NM:?} lib=${FS_CM4_LIB:?}
    local refs=$out/refs.c elf=$out/check_image.elf log=$out/check_image.log
    # shellcheck disable=SC2206
    local cflags=(${FS_CM4_CFLAGS:?}) deps=(${FS_CM4_DEPS:-})
    {
        echo "/* Generated by test/freestanding/check.sh: every global upq_ symbol of $lib. */"
        echo "typedef void (*upq_image_fn)(void);"
        "$nm" -g --defined-only "$lib" | awk 'NF >= 3 && $NF ~ /^upq_/ { print $(NF-1), $NF }' | sort -u -k2 |
            awk '{ if ($1 == "T") { fn[++nf] = $2; print "void " $2 "(void);" }
                   else { dt[++nd] = $2; print "extern const unsigned char " $2 "[];" } }
                 END {
                   printf "const upq_image_fn upq_image_fns[] = {"
                   for (i = 1; i <= nf; i++) printf " %s,", fn[i]
                   print " 0 };"
                   printf "const void *const upq_image_data[] = {"
                   for (i = 1; i <= nd; i++) printf " %s,", dt[i]
                   print " 0 };"
                 }'
    } >"$refs"
    if ! {
        "$cc" "${cflags[@]}" -c "$here/image_main.c" -o "$out/image_main.o" &&
            "$cc" "${cflags[@]}" -w -c "$refs" -o "$out/refs.o" &&
            "$cc" "${cflags[@]}" -nostdlib -nostartfiles -T "${FS_LDSCRIPT:?}" \
                -Wl,-Map="$out/check_image.map" -o "$elf" "$out/image_main.o" "$out/refs.o" \
                -Wl,--start-group "$lib" "${deps[@]}" -lgcc -Wl,--end-group
    } >"$log" 2>&1; then
        mapfile -t lines <"$log"
        fail "$title" "${lines[@]}"
        return
    fi
    local undef
    undef=$("$nm" -u "$elf" | awk 'NF { print $NF }' | tr '\n' ' ')
    if [ -n "$undef" ]; then
        fail "$title: image still has undefined symbols" "$undef"
        return
    fi
    local n
    n=$(grep -c '^void upq_\|^extern const unsigned char upq_' "$refs")
    pass "$title ($n upq_ symbols kept; $("${FS_CM4_SIZE:?}" "$elf" | awk 'NR == 2 { print "text " $1 ", data " $2 ", bss " $3 " bytes" }'))"
}

# shellcheck disable=SC2086
{
    check_undefined "Cortex-M4 library objects need only the library, its packages and libgcc helpers" \
        "$FS_CM4_NM" "$here/allow-lib.txt $here/allow-rt-cortex-m4.txt" "$FS_CM4_OBJS ${FS_CM4_DEPS:-}" $FS_CM4_OBJS
    check_undefined "Cortex-M4 package objects need only the library, the packages and allow-deps.txt" \
        "$FS_CM4_NM" "$here/allow-deps.txt $here/allow-rt-cortex-m4.txt" "$FS_CM4_OBJS ${FS_CM4_DEPS:-}" ${FS_CM4_DEPS:-}
    check_namespace "every global symbol the library defines starts with upq_" "$FS_CM4_NM" $FS_CM4_OBJS
    check_no_state "library objects hold no writable data (no static state)" \
        "$FS_CM4_NM" "$FS_CM4_SIZE" $FS_CM4_OBJS
    check_image
    check_undefined "Cortex-M0+ library objects need only the library, its packages and libgcc helpers" \
        "${FS_M0_NM:?}" "$here/allow-lib.txt $here/allow-rt-cortex-m0plus.txt $here/allow-package-api.txt" \
        "${FS_M0_OBJS:?}" $FS_M0_OBJS
    check_undefined "RV32IMAC library objects need only the library, its packages and libgcc helpers" \
        "${FS_RV_NM:?}" "$here/allow-lib.txt $here/allow-rt-rv32imac.txt $here/allow-package-api.txt" \
        "${FS_RV_OBJS:?}" $FS_RV_OBJS
    check_undefined "host library objects need only the library, its packages and compiler helpers" \
        "$FS_HOST_NM" "$here/allow-lib.txt $here/allow-rt-host.txt" "$FS_HOST_OBJS ${FS_HOST_DEPS:-}" $FS_HOST_OBJS
    check_undefined "host package objects need only the library, the packages and allow-deps.txt" \
        "$FS_HOST_NM" "$here/allow-deps.txt $here/allow-rt-host.txt" "$FS_HOST_OBJS ${FS_HOST_DEPS:-}" ${FS_HOST_DEPS:-}
}

echo "freestanding: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
