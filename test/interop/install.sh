#!/usr/bin/env bash
# Installs the pinned interop packages (package-lock.json) into
# test/interop/node_modules.
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

# The installed client must be the pinned one.
want=$(node -p "require('./package.json').dependencies['@duckdb/node-api']")
have=$(node -p "require('./node_modules/@duckdb/node-api/package.json').version")
if [ "$want" != "$have" ]; then
    echo "interop: installed @duckdb/node-api $have, but package.json pins $want" >&2
    exit 1
fi
echo "interop: @duckdb/node-api $have installed"
