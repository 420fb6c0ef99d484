#!/usr/bin/env bash
# Installs the npm packages (nunjucks via @lowdefy/nunjucks, mingo, moment,
# change-case) used as the oracle for the differential tests of
# internal/lowdefy/{nunjucks,mql,moment,changecase}. Idempotent.
set -euo pipefail
dir="$(cd "$(dirname "$0")/../tools/jslibs-oracle" && pwd)"
cd "$dir"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "setup-jslibs-oracle: node and npm (Node 20) must be on PATH" >&2
  exit 1
fi
stamp=node_modules/.package-lock.json
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp" 2>/dev/null; then
  exit 0
fi
if [ -d node_modules/mingo ] && [ -d node_modules/moment ] && [ -d node_modules/change-case ] && [ -d node_modules/@lowdefy/nunjucks ] && [ "$stamp" -nt package-lock.json ]; then
  exit 0
fi
npm ci --ignore-scripts --no-audit --no-fund
