#!/usr/bin/env bash
# test.sh — install what the test suite needs and run all of it. This is `make test`, and
# CI's .ci/run calls exactly that. Installs are idempotent and quick when already done:
# PostgreSQL and MariaDB (Debian) started on loopback ports, Node 22 with the MCP conformance suite,
# the MCP Inspector and playwright-core (npm, locked), Debian's Chromium, and the Lowdefy
# oracles (npm, locked).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "setup: PostgreSQL"
eval "$(scripts/setup-postgres.sh)"
export MCPBRIDGE_TEST_POSTGRES
# Stop the server at the end if this run started it (MCPBRIDGE_KEEP_POSTGRES=1 keeps it).
if [[ -n ${MCPBRIDGE_PG_STARTED:-} && -z ${MCPBRIDGE_KEEP_POSTGRES:-} ]]; then
	stop_postgres=1
fi
stop_postgres=${stop_postgres:-}
stop_mysql=
# Stop the servers this run started, whichever way it ends.
cleanup() {
	if [[ -n $stop_postgres ]]; then scripts/stop-postgres.sh; fi
	if [[ -n $stop_mysql ]]; then scripts/stop-mysql.sh; fi
}
trap cleanup EXIT
step "setup: MySQL (MariaDB) for the Lowdefy Knex connection"
eval "$(scripts/setup-mysql.sh)"
export MCPBRIDGE_TEST_MYSQL
# Stop it at the end if this run started it (MCPBRIDGE_KEEP_MYSQL=1 keeps it).
if [[ -n ${MCPBRIDGE_MYSQL_STARTED:-} && -z ${MCPBRIDGE_KEEP_MYSQL:-} ]]; then
	stop_mysql=1
fi
step "setup: Node 22, conformance suite, Inspector, playwright-core"
scripts/setup-node.sh
step "setup: Chromium"
scripts/setup-chromium.sh
for s in setup-lowdefy-oracle setup-lowdefy-build-oracle setup-jslibs-oracle; do
	if [[ -x scripts/$s.sh ]]; then
		step "setup: $s"
		scripts/$s.sh
	fi
done

step "go vet"
go vet ./...

step "go test"
# -p 2: the machine has two cores; e2e and store tests start servers of their own.
go test -count=1 -p 2 -timeout 25m ./...

step "security: every attack of the hardening issue, point by point"
scripts/security-tests.sh

step "go test -race (the concurrent core)"
go test -race -count=1 -p 2 -timeout 15m ./internal/gateway/... ./internal/backend/... ./internal/store/... ./internal/expr/... ./internal/safehttp/...
