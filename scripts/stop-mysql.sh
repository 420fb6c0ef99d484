#!/usr/bin/env bash
# stop-mysql.sh — stop the throwaway MariaDB server started by setup-mysql.sh (same
# MCPBRIDGE_MYSQL_DIR). Does nothing when it is not running.
set -euo pipefail
dir=${MCPBRIDGE_MYSQL_DIR:-/tmp/mcpbridge-mysql}
sock=$dir/mysqld.sock
command -v mariadb-admin >/dev/null || exit 0
if mariadb-admin --no-defaults --socket="$sock" -uroot ping >/dev/null 2>&1; then
	echo "stop-mysql: stopping the test server in $dir" >&2
	mariadb-admin --no-defaults --socket="$sock" -uroot shutdown >&2
fi
