#!/usr/bin/env bash
# Fetches the pinned codec and crypto packages named in codecs/deps.lock,
# verifies their SHA-256 and unpacks each into codecs/.deps/NAME/.
#
#   codecs/fetch.sh [NAME...]      fetch the named packages (default: all pins)
#   codecs/fetch.sh --setup-apt    only enable Debian source packages (root)
#
# Where the sources come from, per package NAME (lz4 zstd mbedtls zlib brotli):
#   NAME_SRC=/dir        a directory used as is (a warning is printed; its
#                        version is checked against the pin, not its bytes)
#   NAME_SRC=/x.tar.*    a tarball; its SHA-256 must be one deps.lock accepts
#   (neither)            the Debian 12 source package at the pinned version,
#                        via `apt-get source --download-only`; deb-src is
#                        enabled through /etc/apt/sources.list.d/upq-src.sources
#                        when missing (that needs root).
# Downloads are kept in UPQ_DEPS_CACHE (default codecs/.deps/dl) and reused
# when their checksum still matches, so a second run does no network I/O.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
lock=$here/deps.lock
deps_dir=${UPQ_DEPS_DIR:-$here/.deps}
cache=${UPQ_DEPS_CACHE:-$deps_dir/dl}
apt_src_file=/etc/apt/sources.list.d/upq-src.sources

die() { echo "deps: error: $*" >&2; exit 1; }
warn() { echo "deps: warning: $*" >&2; }
say() { echo "deps: $*"; }

[ -f "$lock" ] || die "missing $lock"

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# The `pin` line of a package, the checksums accepted for it, all pinned names.
pin_line() { awk -v n="$1" '$1 == "pin" && $2 == n { print; exit }' "$lock"; }
accepted_sums() { awk -v n="$1" '($1 == "pin" && $2 == n) { print $7 } ($1 == "also" && $2 == n) { print $4 }' "$lock"; }
all_pins() { awk '$1 == "pin" { print $2 }' "$lock"; }

# A file whose presence shows the tree is the right package, unpacked whole.
key_file() {
    case $1 in
    lz4) echo lib/lz4.c ;;
    zstd) echo lib/decompress/zstd_decompress.c ;;
    mbedtls) echo library/gcm.c ;;
    zlib) echo inflate.c ;;
    brotli) echo c/dec/decode.c ;;
    libdeflate) echo lib/deflate_decompress.c ;;
    *) die "no key file known for $1" ;;
    esac
}

# The version a source tree says it is, read from its public header.
tree_version() {
    local name=$1 dir=$2 h
    case $name in
    lz4 | zstd)
        if [ "$name" = lz4 ]; then h=$dir/lib/lz4.h; p=LZ4; else h=$dir/lib/zstd.h; p=ZSTD; fi
        [ -f "$h" ] || return 0
        awk -v p="$p" '$1 == "#define" && $2 == p "_VERSION_MAJOR" { a = $3 }
                       $1 == "#define" && $2 == p "_VERSION_MINOR" { b = $3 }
                       $1 == "#define" && $2 == p "_VERSION_RELEASE" { c = $3 }
                       END { if (a != "") print a "." b "." c }' "$h"
        ;;
    mbedtls)
        h=$dir/include/mbedtls/version.h
        [ -f "$h" ] && sed -n 's/^#define MBEDTLS_VERSION_STRING *"\([^"]*\)".*/\1/p' "$h" | head -n1
        ;;
    zlib)
        h=$dir/zlib.h
        [ -f "$h" ] && sed -n 's/^#define ZLIB_VERSION *"\([^"]*\)".*/\1/p' "$h" | head -n1
        ;;
    libdeflate)
        h=$dir/libdeflate.h
        [ -f "$h" ] && sed -n 's/^#define LIBDEFLATE_VERSION_STRING[[:space:]]*"\([^"]*\)".*/\1/p' "$h" | head -n1
        ;;
    brotli)
        # BROTLI_VERSION 0x1000009: major << 24 | minor << 12 | patch
        h=$dir/c/common/version.h
        [ -f "$h" ] || return 0
        local x
        x=$(sed -n 's/^#define BROTLI_VERSION 0x\([0-9A-Fa-f]*\).*/\1/p' "$h" | head -n1)
        [ -n "$x" ] && echo "$(((16#$x >> 24) & 0xfff)).$(((16#$x >> 12) & 0xfff)).$((16#$x & 0xfff))"
        ;;
    esac
    return 0
}

# Writes upq-src.sources: every `Types: deb` entry of the system's sources,
# repeated with `Types: deb-src`, so `apt-get source` finds the pinned versions.
setup_apt() {
    [ "$(id -u)" = 0 ] || die "Debian source packages are not enabled and this is not root.
  Either run once as root:  sudo $0 --setup-apt && sudo apt-get update
  or supply the sources:    make deps LZ4_SRC=... ZSTD_SRC=... MBEDTLS_SRC=... ZLIB_SRC=..."
    local out
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        # deb822 paragraphs: keep those whose Types list has `deb`.
        out=$(awk 'BEGIN { RS = ""; ORS = "\n\n" }
            {
                n = split($0, line, "\n"); keep = 0; body = ""
                for (i = 1; i <= n; i++) {
                    if (line[i] ~ /^Types:/) {
                        if (line[i] ~ /(^Types:|[ \t])deb([ \t]|$)/) keep = 1
                        line[i] = "Types: deb-src"
                    }
                    body = body line[i] "\n"
                }
                if (keep) { sub(/\n$/, "", body); print body }
            }' /etc/apt/sources.list.d/debian.sources)
    elif [ -f /etc/apt/sources.list ]; then
        # One-line format: deb [opts] URI SUITE COMPONENT...
        out=$(awk '$1 == "deb" {
                i = 2; signed = ""
                if ($2 ~ /^\[/) {
                    while (i <= NF) { o = $i; gsub(/[\[\]]/, "", o)
                        if (o ~ /^signed-by=/) { sub(/^signed-by=/, "", o); signed = o }
                        if ($i ~ /\]$/) { i++; break } ; i++ }
                }
                printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:", $i, $(i + 1)
                for (j = i + 2; j <= NF && $j !~ /^#/; j++) printf " %s", $j
                printf "\n"
                if (signed != "") printf "Signed-By: %s\n", signed
                printf "\n"
            }' /etc/apt/sources.list)
    else
        out=
    fi
    [ -n "$out" ] || die "found no Debian 'deb' source entry to copy (looked in /etc/apt/sources.list.d/debian.sources and /etc/apt/sources.list)"
    out="# Source packages for the uparquet codec dependencies (codecs/fetch.sh).
$out"
    if [ -f "$apt_src_file" ] && [ "$(cat "$apt_src_file")" = "$out" ]; then
        return 0
    fi
    printf '%s\n' "$out" >"$apt_src_file.tmp"
    mv "$apt_src_file.tmp" "$apt_src_file"
    say "wrote $apt_src_file"
}

# apt_version SRC VER FILE SHA: the source version to download. VER when apt
# has it; otherwise any version whose tarball list has FILE with SHA (a
# Debian security or point update keeps the upstream tarball); else nothing.
# (apt-cache's output is read whole: grep -q would close the pipe early, and
# under pipefail the SIGPIPE would read as "not found".)
apt_version() {
    local out
    out=$(apt-cache showsrc "$1" 2>/dev/null) || return 0
    awk -v want="$2" -v file="$3" -v sha="$4" '
        /^Package:/ { v = ""; sums = 0 }
        /^Version:/ { v = $2 }
        /^[A-Za-z0-9-]+:/ { sums = ($1 == "Checksums-Sha256:"); next }
        sums && $1 == sha && $3 == file && v != "" { if (v == want) exact = 1; else if (other == "") other = v }
        END { if (exact) print want; else if (other != "") print other }' <<<"$out"
}

# Downloads FILE of source package SRC (version VER, or one with the same
# tarball) into the cache through apt.
apt_download() {
    local src=$1 ver=$2 file=$3 sha=$4 use
    command -v apt-get >/dev/null || die "apt-get not found; supply ${name^^}_SRC=/path (a directory or tarball)"
    use=$(apt_version "$src" "$ver" "$file" "$sha")
    if [ -z "$use" ]; then
        setup_apt
        say "apt-get update (to see source packages)"
        apt-get update -qq || die "apt-get update failed"
        use=$(apt_version "$src" "$ver" "$file" "$sha")
        [ -n "$use" ] || die "apt knows no source package $src with $file (sha256 $sha); is this Debian 12? Supply ${name^^}_SRC=/path"
    fi
    [ "$use" = "$ver" ] || say "$src $ver is gone from the archive; $use has the same $file"
    # --only-source: SRC names a source package. Without it apt may take
    # SRC=VER for the binary package of that name and fetch the source of
    # the binary's candidate (brotli 1.0.9-2 gave 1.0.9-2+deb12u1).
    local opts=(--download-only --only-source -qq)
    # As root apt drops to the _apt user, which may not write here.
    [ "$(id -u)" = 0 ] && opts+=(-o APT::Sandbox::User=root)
    say "downloading $src $use"
    (cd "$cache" && apt-get source "${opts[@]}" "$src=$use" >/dev/null) ||
        die "apt-get source $src=$use failed"
    [ -f "$cache/$file" ] || die "apt-get source $src=$use did not bring $file"
}

unpack() {
    local name=$1 tarball=$2 dest=$3 tmp
    tmp=$(mktemp -d "$deps_dir/.$name.XXXXXX")
    if ! tar -xf "$tarball" -C "$tmp" --strip-components=1 --no-same-owner; then
        rm -rf "$tmp"
        die "could not unpack $tarball"
    fi
    chmod u=rwx,go=rx "$tmp" # mktemp made it private
    rm -rf "$dest"
    mv "$tmp" "$dest"
}

fetch_one() {
    name=$1
    local line up_ver deb_src deb_ver file sha var user want dest stamp tarball sum got
    line=$(pin_line "$name")
    [ -n "$line" ] || die "no pin for '$name' in $lock"
    read -r _ _ up_ver deb_src deb_ver file sha <<<"$line"
    var=${name^^}_SRC
    user=${!var:-}
    dest=$deps_dir/$name
    stamp=$deps_dir/$name.stamp

    if [ -n "$user" ]; then
        if [ -d "$user" ]; then
            want="dir $(cd "$user" && pwd)"
        elif [ -f "$user" ]; then
            sum=$(sha256_of "$user")
            accepted_sums "$name" | grep -qxF "$sum" ||
                die "$var=$user has SHA-256 $sum, which deps.lock does not accept for $name $up_ver
  (accepted: $(accepted_sums "$name" | tr '\n' ' '))"
            want="tar $sum"
        else
            die "$var=$user is neither a directory nor a file"
        fi
    else
        want="tar $sha"
    fi

    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$dest/$(key_file "$name")" ]; then
        say "$name $up_ver ready (${want%% *} ${want#* })"
        return 0
    fi

    rm -f "$stamp"
    case $want in
    dir\ *)
        rm -rf "$dest"
        ln -s "${want#dir }" "$dest"
        [ -f "$dest/$(key_file "$name")" ] || die "$var=$user has no $(key_file "$name"): not a $name source tree"
        warn "$name: using the directory $user as is (not checksum-verified)"
        ;;
    tar\ *)
        if [ -n "$user" ]; then
            tarball=$user
        else
            tarball=$cache/$file
            mkdir -p "$cache"
            if [ ! -f "$tarball" ] || [ "$(sha256_of "$tarball")" != "$sha" ]; then
                rm -f "$tarball"
                apt_download "$deb_src" "$deb_ver" "$file" "$sha"
            fi
            sum=$(sha256_of "$tarball")
            [ "$sum" = "$sha" ] || die "$file: SHA-256 $sum, deps.lock pins $sha"
        fi
        unpack "$name" "$tarball" "$dest"
        [ -f "$dest/$(key_file "$name")" ] || die "$tarball has no $(key_file "$name"): not a $name source tarball"
        ;;
    esac

    got=$(tree_version "$name" "$dest")
    if [ "$got" != "$up_ver" ]; then
        case $want in
        dir\ *) warn "$name: $user is version '${got:-unknown}', the pin is $up_ver" ;;
        *) die "$name: unpacked version '${got:-unknown}', the pin is $up_ver" ;;
        esac
    fi
    printf '%s\n' "$want" >"$stamp"
    case $want in
    dir\ *) say "$name $up_ver: ${dest#"$PWD"/} -> ${want#dir }" ;;
    *) say "$name $up_ver unpacked into ${dest#"$PWD"/} (sha256 ${want#tar } verified)" ;;
    esac
}

if [ "${1:-}" = "--setup-apt" ]; then
    setup_apt
    exit 0
fi

mkdir -p "$deps_dir"
if [ $# -eq 0 ]; then
    mapfile -t pins < <(all_pins)
    set -- "${pins[@]}"
fi
for n in "$@"; do
    fetch_one "$n"
done
