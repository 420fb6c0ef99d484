#!/usr/bin/env bash
# Installs the Lowdefy engine oracle (tools/lowdefy-engine-oracle: @lowdefy/engine, api, build,
# actions-core, operators and the AxiosHttp, Knex and MongoDB connections at 4.0.0-rc.11,
# pinned by its package-lock.json) used by internal/lowdefy/lowdefytest.
#
# Needs Node 22 from tools/node (scripts/setup-node.sh; its headers build the sqlite3 driver),
# and a C++ toolchain (g++, make, python3). Install scripts are never run from the registry
# (--ignore-scripts): the one native module, sqlite3 (a Node-API addon, so not tied to one Node
# version), is compiled here from the source in its package — no prebuilt binary is downloaded.
# Idempotent: does nothing when node_modules already matches the lock file.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$ROOT/tools/lowdefy-engine-oracle"

case "$(uname -m)" in
  x86_64|amd64) arch=x64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) echo "setup-lowdefy-engine-oracle: unsupported machine $(uname -m)" >&2; exit 1 ;;
esac
nodedir="$ROOT/tools/node/node_modules/node-linux-$arch"
node22="$nodedir/bin/node"
if [ ! -x "$node22" ] || [ ! -f "$nodedir/include/node/node_api.h" ]; then
  echo "setup-lowdefy-engine-oracle: Node 22 is missing in tools/node; run scripts/setup-node.sh first" >&2
  exit 1
fi
for tool in npm g++ make python3; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "setup-lowdefy-engine-oracle: $tool is required (Debian: apt-get install -y nodejs npm g++ make python3)" >&2
    exit 1
  fi
done

stamp="$dir/node_modules/.mcpbridge-lock-sha256"
want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
binding() { find "$dir/node_modules/sqlite3/lib/binding" -name node_sqlite3.node 2>/dev/null | head -1; }
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -n "$(binding)" ] \
  && "$node22" -e "require('$dir/node_modules/sqlite3')" >/dev/null 2>&1; then
  echo "setup-lowdefy-engine-oracle: already installed"
  exit 0
fi

cd "$dir"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
# Compile sqlite3 against Node 22's headers (never fetch headers or prebuilt binaries).
PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir" npm_config_build_from_source=true \
  npm rebuild sqlite3 --build-from-source --foreground-scripts --loglevel=error >"$dir/node_modules/.sqlite3-build.log" 2>&1 || {
  echo "setup-lowdefy-engine-oracle: building sqlite3 failed; see $dir/node_modules/.sqlite3-build.log" >&2
  tail -20 "$dir/node_modules/.sqlite3-build.log" >&2
  exit 1
}
"$node22" -e "require('$dir/node_modules/sqlite3')"
echo "$want" >"$stamp"
echo "setup-lowdefy-engine-oracle: installed in $dir/node_modules"
