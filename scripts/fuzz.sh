#!/usr/bin/env bash
# fuzz.sh — run every fuzz target of the module (every `func FuzzX` in a _test.go file outside
# third_party/ and tools/) for FUZZTIME each (default 30s), one after another. The test
# command (scripts/test.sh) runs it at the end; `make soak` runs it with a longer FUZZTIME.
# A failure leaves the crashing input in the package's testdata/fuzz/FuzzX/ (commit it as a
# regression case once fixed) and fails the run.
#   FUZZTIME=2m scripts/fuzz.sh          # longer
#   scripts/fuzz.sh ./internal/jsvalue   # only the targets of these packages
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-30s}
# Minimizing a new input takes up to 60s by default, which would eat a short run whole (with
# large seed inputs, FuzzImport spent 30s minimizing and ran 12 inputs); 5s keeps fuzzing.
minimize=${FUZZMINIMIZETIME:-5s}
# pkg<TAB>target for every fuzz target, found in the sources so a new target is never left out.
mapfile -t targets < <(
	grep -rE --include='*_test.go' -o '^func (Fuzz[A-Za-z0-9_]+)\(' --exclude-dir=third_party --exclude-dir=tools --exclude-dir=node_modules . |
		sed -E 's|^\./(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]+)\($|./\1\t\2|' | sort -u
)
if [[ $# -gt 0 ]]; then
	want=" $* "
	kept=()
	for t in "${targets[@]}"; do
		[[ $want == *" ${t%%$'\t'*} "* ]] && kept+=("$t")
	done
	targets=("${kept[@]}")
fi
if [[ ${#targets[@]} -eq 0 ]]; then
	echo "fuzz: no fuzz targets found" >&2
	exit 1
fi
echo "fuzz: ${#targets[@]} targets, $fuzztime each (minimizing a new input at most $minimize)"
failed=()
start=$SECONDS
for t in "${targets[@]}"; do
	pkg=${t%%$'\t'*}
	name=${t##*$'\t'}
	t0=$SECONDS
	ok=0
	for try in 1 2; do
		if out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" "$pkg" 2>&1); then
			ok=1
			break
		fi
		# Go 1.26's fuzzing coordinator can report the end of -fuzztime itself as a failure
		# ("context deadline exceeded" and nothing else, no input written) when a worker is
		# slow to stop on a busy machine: golang/go#75804, fixed in Go 1.27. That, and only
		# that, is run once more; a failing input, a panic or any other message fails at once.
		if [[ $try -eq 1 ]] && ! grep -q 'Failing input written to' <<<"$out" &&
			[[ $(grep -A3 -E "^--- FAIL: ${name} " <<<"$out" | grep -vE "^--- FAIL: ${name} |^\s+context deadline exceeded\$|^FAIL\$|^exit status 1\$|^FAIL\s" | wc -l) -eq 0 ]] &&
			grep -qE '^\s+context deadline exceeded$' <<<"$out"; then
			printf -- '-- %-22s %-34s the fuzzing run ended with a bare "context deadline exceeded" (golang/go#75804): running it once more\n' "$name" "$pkg"
			continue
		fi
		break
	done
	if [[ $ok -eq 1 ]]; then
		printf -- '-- %-22s %-34s ok   %3ds  %s\n' "$name" "$pkg" $((SECONDS - t0)) "$(grep -Eo 'execs: [0-9]+' <<<"$out" | tail -1)"
	else
		printf -- '-- %-22s %-34s FAIL %3ds\n' "$name" "$pkg" $((SECONDS - t0))
		tail -30 <<<"$out"
		failed+=("$name ($pkg)")
	fi
done
echo "fuzz: $((SECONDS - start))s in all"
if [[ ${#failed[@]} -ne 0 ]]; then
	printf 'fuzz: FAILED: %s\n' "${failed[@]}"
	exit 1
fi
