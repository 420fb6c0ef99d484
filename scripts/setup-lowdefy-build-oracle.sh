#!/usr/bin/env bash
# Installs the Lowdefy build oracle (@lowdefy/build 4.0.0-rc.11, pinned by
# tools/lowdefy-build-oracle/package-lock.json) used by the internal/lowdefy/app tests.
# Idempotent: does nothing when node_modules already matches the lock file.
set -euo pipefail

dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools/lowdefy-build-oracle" && pwd)"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "setup-lowdefy-build-oracle: node and npm (Node 20) are required" >&2
  exit 1
fi
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 18 ]; then
  echo "setup-lowdefy-build-oracle: Node >= 18 required (found $(node --version))" >&2
  exit 1
fi

# A stamp holding the lock file's hash, written after a successful install.
stamp="$dir/node_modules/.mcpbridge-lock-sha256"
want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$dir/node_modules/@lowdefy/build/package.json" ]; then
  echo "setup-lowdefy-build-oracle: already installed"
  exit 0
fi

cd "$dir"
npm ci --ignore-scripts --no-audit --no-fund
echo "$want" >"$stamp"
echo "setup-lowdefy-build-oracle: installed in $dir/node_modules"
