#!/usr/bin/env bash
# Installs the pinned interop packages (package-lock.json) into
# test/interop/node_modules: the DuckDB client, and arrow-rs compiled to
# WebAssembly (parquet-wasm) with the Arrow reader for what it returns
# (apache-arrow).
#
# `npm ci` is tried first. The lock file can only list the DuckDB bindings of
# the platforms the registry serves (this one has linux-x64, not darwin or
# win32), and npm ci rejects a lock file that misses optional platform
# packages; then `npm install --no-save` installs the same locked versions
# without touching package.json or the lock file.
set -u
cd "$(dirname "$0")" || exit 1
npm=${NPM:-npm}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

if "$npm" ci --no-audit --no-fund --loglevel=error >"$out" 2>&1; then
    cat "$out"
elif grep -q 'can only install packages when your package.json and package-lock.json' "$out"; then
    echo "interop: npm ci: the lock file lacks other platforms' optional bindings; using npm install --no-save"
    "$npm" install --no-save --no-audit --no-fund --loglevel=error || exit 1
else
    cat "$out"
    exit 1
fi

# The installed packages must be the pinned ones.
bad=0
for pkg in $(node -p "Object.keys(require('./package.json').dependencies).join(' ')"); do
    want=$(node -p "require('./package.json').dependencies['$pkg']")
    have=$(node -p "require('./node_modules/$pkg/package.json').version")
    if [ "$want" != "$have" ]; then
        echo "interop: installed $pkg $have, but package.json pins $want" >&2
        bad=1
    else
        echo "interop: $pkg $have installed"
    fi
done
exit $bad
