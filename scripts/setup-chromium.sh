#!/usr/bin/env bash
# Installs Debian's chromium for the e2e page tests (e2e/pages_test.go), if it is missing.
# Idempotent: does nothing when /usr/bin/chromium already exists. Needs root (apt-get).
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "chromium: /usr/bin/chromium ($(/usr/bin/chromium --version 2>/dev/null || echo 'version unknown'))"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends chromium fonts-dejavu-core

if [ ! -x /usr/bin/chromium ]; then
  echo "setup-chromium.sh: apt-get finished but /usr/bin/chromium is missing" >&2
  exit 1
fi
echo "chromium: /usr/bin/chromium ($(/usr/bin/chromium --version 2>/dev/null || echo 'version unknown'))"
