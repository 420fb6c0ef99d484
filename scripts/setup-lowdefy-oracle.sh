#!/usr/bin/env bash
# Installs the Lowdefy operator oracle (tools/lowdefy-oracle: @lowdefy/operators,
# operators-js, helpers and the plugin operator packages, all 4.0.0-rc.11) used by
# the differential tests of internal/lowdefy/operators. Idempotent and fast when
# already installed.
set -euo pipefail
dir="$(cd "$(dirname "$0")/../tools/lowdefy-oracle" && pwd)"
cd "$dir"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "setup-lowdefy-oracle: node and npm (Node 20) must be on PATH (see scripts/setup-node.sh)" >&2
  exit 1
fi
stamp=node_modules/.package-lock.json
if [ -f "$stamp" ] && [ -d node_modules/@lowdefy/operators ] && [ "$stamp" -nt package-lock.json ]; then
  exit 0
fi
npm ci --ignore-scripts --no-audit --no-fund
