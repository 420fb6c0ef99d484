#!/usr/bin/env bash
# secrets-scan.sh — fail when a canary secret appears in the output of a test run. The e2e
# tests give every process they start canary secrets (e2e/testdata/secret-canaries.txt: each
# value carries the marker LEAKCANARY) and exercise them through pages, listings, results,
# errors and logs; no output may hold one. scripts/test.sh calls this on the whole run's
# output: the `go test -json` stream (every test's log, passing or not) and the artifact
# directory (the logs of every serve process, page screenshots and reports).
#   scripts/secrets-scan.sh FILE_OR_DIR...
set -euo pipefail
marker=LEAKCANARY
if [[ $# -eq 0 ]]; then
	echo "usage: $0 FILE_OR_DIR..." >&2
	exit 2
fi
files=0
for p in "$@"; do
	[[ -e $p ]] || { echo "secrets-scan: $p does not exist" >&2; exit 2; }
	files=$((files + $(find "$p" -type f | wc -l)))
done
# -I: binary files (screenshots) are skipped; -a would be wrong for them and they are images.
if hits=$(grep -rIn --color=never "$marker" "$@"); then
	echo "secrets-scan: FAIL: a canary secret ($marker) is in the run's output:"
	cut -c1-300 <<<"$hits" | head -20
	echo "secrets-scan: $(wc -l <<<"$hits") lines in all"
	exit 1
fi
echo "secrets-scan: no canary secret in $files files ($*)"
