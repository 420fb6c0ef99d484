#!/usr/bin/env bash
# stop-postgres.sh — stop the throwaway PostgreSQL cluster started by setup-postgres.sh
# (same MCPBRIDGE_PG_DIR). Does nothing when it is not running.
set -euo pipefail
dir=${MCPBRIDGE_PG_DIR:-/tmp/mcpbridge-postgres}
data=$dir/data
bindir=
for d in /usr/lib/postgresql/*/bin; do
	[[ -x $d/pg_ctl ]] && bindir=$d
done
[[ -n $bindir && -f $data/PG_VERSION ]] || exit 0
run=()
[[ $(id -u) -eq 0 ]] && run=(runuser -u postgres --)
if "${run[@]}" "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
	echo "stop-postgres: stopping the test cluster in $data" >&2
	"${run[@]}" "$bindir/pg_ctl" -D "$data" -m fast -w stop >&2
fi
