#!/usr/bin/env bash
# setup-mysql.sh — start (or reuse) a throwaway MariaDB server (MySQL protocol) on a
# loopback port for the Lowdefy Knex connection tests, and print the URL the tests read:
#
#   eval "$(scripts/setup-mysql.sh)"    # sets MCPBRIDGE_TEST_MYSQL
#   go test ./internal/lowdefy/connections/knex/
#
# Idempotent: installs Debian's mariadb-server only when no server binary is found,
# initialises the data directory only once, and reuses a running server.
# Settings (environment):
#   MCPBRIDGE_MYSQL_DIR   server folder  (default /tmp/mcpbridge-mysql)
#   MCPBRIDGE_MYSQL_PORT  loopback port  (default 53306)
# Everything but the final export lines goes to stderr. When this run started the server it
# also exports MCPBRIDGE_MYSQL_STARTED; scripts/stop-mysql.sh stops it.
set -euo pipefail

dir=${MCPBRIDGE_MYSQL_DIR:-/tmp/mcpbridge-mysql}
port=${MCPBRIDGE_MYSQL_PORT:-53306}
user=mcpbridge
password=mcpbridge-test  # throwaway server on loopback only
data=$dir/data
sock=$dir/mysqld.sock
pidfile=$dir/mysqld.pid
log=$dir/mysqld.log

say() { echo "setup-mysql: $*" >&2; }

find_server() {
	local b
	for b in /usr/sbin/mariadbd /usr/sbin/mysqld; do
		if [[ -x $b ]]; then
			server=$b
			return 0
		fi
	done
	return 1
}

server=
if ! find_server || ! command -v mariadb-install-db >/dev/null; then
	say "no MariaDB server found; installing Debian's mariadb-server"
	if [[ $(id -u) -ne 0 ]]; then
		say "installing needs root: run as root, or: sudo apt-get install -y mariadb-server"
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update >&2
	apt-get install -y mariadb-server >&2
	find_server || { say "mariadb-server installed but no server binary in /usr/sbin"; exit 1; }
fi
say "using $server ($("$server" --version))"

# mariadbd refuses to run as root unless told which user to run as.
run_as=()
if [[ $(id -u) -eq 0 ]]; then
	id mysql >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin mysql
	run_as=(--user=mysql)
fi

mkdir -p "$dir"
if [[ ${#run_as[@]} -gt 0 ]]; then
	chown mysql: "$dir"
fi
chmod 700 "$dir"

alive() { mariadb-admin --no-defaults --socket="$sock" -uroot ping >/dev/null 2>&1; }

if [[ ! -d $data/mysql ]]; then
	say "initialising data directory $data"
	mariadb-install-db --no-defaults "${run_as[@]}" --datadir="$data" \
		--auth-root-authentication-method=normal --skip-test-db >&2
fi

started=
if alive; then
	say "server already running"
else
	started=1
	say "starting server on 127.0.0.1:$port (log $log)"
	# The port may be held for a moment by another process's outgoing connection (53306 is in
	# the ephemeral range): MariaDB then exits with "Address already in use"; try again.
	for attempt in 1 2 3 4 5; do
		# setsid: the server outlives this script (and the shell that evals its output).
		setsid "$server" --no-defaults "${run_as[@]}" --datadir="$data" --port="$port" \
			--bind-address=127.0.0.1 --socket="$sock" --pid-file="$pidfile" --log-error="$log" \
			--skip-name-resolve --innodb-buffer-pool-size=64M --innodb-flush-log-at-trx-commit=0 \
			--max-connections=300 --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
			</dev/null >/dev/null 2>&1 &
		pid=$!
		for _ in $(seq 1 200); do
			alive && break
			kill -0 "$pid" 2>/dev/null || break # it exited
			sleep 0.1
		done
		alive && break
		if tail -n 5 "$log" 2>/dev/null | grep -q 'Address already in use'; then
			say "port $port is taken for now (attempt $attempt); retrying in 2 s"
			sleep 2
			continue
		fi
		break
	done
	if ! alive; then
		say "server not ready on 127.0.0.1:$port; see $log"
		exit 1
	fi
fi

# The test user may create and drop databases (each test gets its own).
mariadb --no-defaults --socket="$sock" -uroot >&2 <<SQL
CREATE USER IF NOT EXISTS '$user'@'127.0.0.1' IDENTIFIED BY '$password';
CREATE USER IF NOT EXISTS '$user'@'localhost' IDENTIFIED BY '$password';
GRANT ALL PRIVILEGES ON *.* TO '$user'@'127.0.0.1';
GRANT ALL PRIVILEGES ON *.* TO '$user'@'localhost';
SQL

echo "export MCPBRIDGE_TEST_MYSQL=mysql://$user:$password@127.0.0.1:$port/"
# Tell the caller whether this run started the server, so it can stop what it started.
if [[ -n $started ]]; then
	echo "export MCPBRIDGE_MYSQL_STARTED=$data"
fi
