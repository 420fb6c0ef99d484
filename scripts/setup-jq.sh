#!/usr/bin/env bash
# Installs Debian's jq for the docs example of transforms (docs/config.md, e2e/transform_test.go),
# if it is missing. Idempotent: does nothing when jq is on PATH. Needs root (apt-get).
set -euo pipefail

if command -v jq >/dev/null; then
  echo "jq: $(command -v jq) ($(jq --version 2>/dev/null || echo 'version unknown'))"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends jq

if ! command -v jq >/dev/null; then
  echo "setup-jq.sh: apt-get finished but jq is not on PATH" >&2
  exit 1
fi
echo "jq: $(command -v jq) ($(jq --version 2>/dev/null || echo 'version unknown'))"
