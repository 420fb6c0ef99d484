#!/usr/bin/env bash
# setup-postgres.sh — start (or reuse) a throwaway PostgreSQL cluster on a
# loopback port for mcpbridge's postgres store tests, and print the URL the
# tests read:
#
#   eval "$(scripts/setup-postgres.sh)"    # sets MCPBRIDGE_TEST_POSTGRES
#   go test ./internal/store/...
#
# Idempotent: installs Debian's postgresql only when no server binary is
# found, initialises the cluster only once, and reuses a running server.
# Settings (environment):
#   MCPBRIDGE_PG_DIR   cluster folder   (default /tmp/mcpbridge-postgres)
#   MCPBRIDGE_PG_PORT  loopback port    (default 55432)
# Everything but the final export lines goes to stderr. When this run started the server it
# also exports MCPBRIDGE_PG_STARTED; scripts/stop-postgres.sh stops it.
set -euo pipefail

dir=${MCPBRIDGE_PG_DIR:-/tmp/mcpbridge-postgres}
port=${MCPBRIDGE_PG_PORT:-55432}
user=mcpbridge
password=mcpbridge-test  # throwaway cluster on loopback only
data=$dir/data
log=$dir/postgres.log

say() { echo "setup-postgres: $*" >&2; }

find_bindir() {
	local d
	for d in /usr/lib/postgresql/*/bin; do
		if [[ -x $d/postgres && -x $d/initdb && -x $d/pg_ctl ]]; then
			bindir=$d
		fi
	done
	[[ -n ${bindir:-} ]]
}

bindir=
if ! find_bindir; then
	say "no PostgreSQL server found; installing Debian's postgresql"
	if [[ $(id -u) -ne 0 ]]; then
		say "installing needs root: run as root, or: sudo apt-get install -y postgresql"
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update >&2
	apt-get install -y postgresql >&2
	find_bindir || { say "postgresql installed but no server binary under /usr/lib/postgresql/*/bin"; exit 1; }
fi
say "using $bindir ($("$bindir/postgres" --version))"

# PostgreSQL refuses to run as root: run the cluster as the postgres user then.
run=()
if [[ $(id -u) -eq 0 ]]; then
	if ! id postgres >/dev/null 2>&1; then
		useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
	fi
	run=(runuser -u postgres --)
fi

mkdir -p "$dir"
if [[ ${#run[@]} -gt 0 ]]; then
	chown postgres: "$dir"
fi
chmod 700 "$dir"

if [[ ! -f $data/PG_VERSION ]]; then
	say "initialising cluster in $data"
	pwfile=$(mktemp)
	printf '%s\n' "$password" >"$pwfile"
	chmod 644 "$pwfile"
	"${run[@]}" "$bindir/initdb" -D "$data" -U "$user" --pwfile="$pwfile" \
		--auth=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >&2 || { rm -f "$pwfile"; exit 1; }
	rm -f "$pwfile"
fi

started=
if "${run[@]}" "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
	say "server already running"
else
	started=1
	say "starting server on 127.0.0.1:$port (log $log)"
	"${run[@]}" "$bindir/pg_ctl" -D "$data" -l "$log" -w -t 60 start -o "\
-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir \
-c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
-c shared_buffers=64MB" >&2
fi

for _ in $(seq 1 100); do
	if "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port"; then
		break
	fi
	sleep 0.1
done
if ! "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port"; then
	say "server not ready on 127.0.0.1:$port; see $log"
	exit 1
fi

echo "export MCPBRIDGE_TEST_POSTGRES=postgres://$user:$password@127.0.0.1:$port/postgres?sslmode=disable"
# Tell the caller whether this run started the server, so it can stop what it started.
if [[ -n $started ]]; then
	echo "export MCPBRIDGE_PG_STARTED=$data"
fi
