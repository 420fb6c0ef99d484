#!/usr/bin/env bash
# security-tests.sh — the "security" test group: every attack of the hardening issue (12.x)
# and of the security suite (issue 11: seed 004 T14.1-T14.5, JWTs, cross-principal sessions,
# secrets, sandbox escapes, file-resource traversal, XSS in every page), performed against
# the real components (command and HTTP tools, the sandbox, a gateway on loopback, real
# serve and stdio processes, headless Chromium), point by point. make test runs it; run it
# alone with: scripts/security-tests.sh (PostgreSQL is not needed; the e2e groups need Node
# and Chromium: scripts/setup-node.sh, scripts/setup-chromium.sh). The secrets scan of a whole
# run is scripts/secrets-scan.sh, the last step of scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

# point | package | tests (a go test -run regex, anchored)
groups=(
	"12.1 option injection|./internal/backend/command|TestOptionInjectionGrepEnviron|TestOptionInjectionFindExecThroughArray|TestOptionInjectionGitLogOutput|TestAllowOptions"
	"12.2 secrets in the gateway's environment|./internal/cli|TestServeHidesSecretsFromChildren|TestStdioHidesSecretsFromChildren"
	"12.2 secret references in env|./internal/backend/command|TestEnvSecretReferences"
	"12.3 scrubbing at cuts and in binary (http)|./internal/backend/httpapi|TestScrubAtCut|TestScrubBinary|TestScrubNumber"
	"12.3 scrubbing (command)|./internal/backend/command|TestOutputsAreScrubbedOfSecrets|TestValueScrubber"
	"12.3 scrubber|./internal/secret|TestScrubber.*"
	"20.1 server:// resources take the tools/call path (auth, key scope, roles, limits, audit)|./internal/gateway|TestAttackServerResourceRunsToolUnchecked|TestAttackServerResourceRateLimit"
	"20.7 trusted proxies, sessions per principal, fair share|./internal/gateway|TestAttackForwardedFor|TestAttackSessionsPerPrincipal|TestAttackSessionShare|TestProxiesClient"
	"20.8 owners namespaced by how the principal authenticated|./internal/gateway|TestAttackSessionOwnerAcrossSources"
	"20.8 a JWT sub of anonymous gets no anonymous work session|./internal/backend/lowdefy|TestAttackReservedPrincipalIDs"
	"20.2 hostile upstream (stdio, HTTP): every output scrubbed, MCP and REST|./internal/backend/upstream|TestHostileUpstreamLeaksNothing"
	"20.3 unbounded upstream answers (4 GiB over HTTP, long stdio lines)|./internal/backend/upstream|TestHugeUpstreamAnswerIsCapped|TestHugeStdioLineIsCapped"
	"20.3 a 4 GiB HTTP API answer|./internal/backend/httpapi|TestHugeAPIAnswerIsBounded"
	"20.6 upstream list sizes and 100,000 completion values|./internal/backend/upstream|TestUpstreamListsAreBounded"
	"20.4 secrets do not cross servers (file:, /proc/PID/environ)|./internal/backend/upstream|TestSecretsDoNotCrossServers"
	"12.4 Referer and cross-host redirects|./internal/backend/httpapi|TestRedirectToOtherHostCarriesNoSecret|TestRedirectBackCarriesNoSecret|TestRedirectSameHostKeepsSecretsButNoReferer"
	"12.5 sandbox limits|./internal/expr|TestBuiltinLimits|TestOperatorLoops|TestMemoryBlameIsPerEvaluation|TestNoCodeGeneration|TestNoAsyncGenerators|TestNoEval"
	"20.5 sandbox built-ins: backtracking regular expressions stop at the time limit, string doubling (serial and 32 parallel) at the memory limit|./internal/expr|TestRegexBacktrackingIsInterrupted|TestRegexBacktrackingStopsAtContextDeadline|TestStringDoublingHitsMemoryLimit|TestParallelDoublingStaysBounded"
	"12.6 timeouts and leftovers|./internal/backend/command|TestLeftoversAreKilledAndCallsEndInTime|TestLeftoversOfARunningCallSurviveOtherCalls|TestLeftoversUnderConcurrentCalls"
	"12.6 shutdown|./internal/gateway|TestShutdownStopsRunningCommands"
	"12.7 caps|./internal/gateway|TestAttackSessionFlood|TestAttackSessionIdle|TestAttackConcurrentCalls|TestAttackSlowBody|TestAttackSlowRESTBody|TestAttackIdleKeepAlive|TestAttackConnectionFlood"
	"12.7 rate limits against spoofed internal headers|./internal/gateway|TestAttackSpoofedInternalHeaders"
	"12.7 limits in the config|./internal/config|TestAttackLimitValues"
	"12.7 app files: size, nesting, alias bombs|./internal/lowdefy/app|TestAttackHugeAppFiles"
	"12.9 generated form tool arguments|./internal/backend/lowdefy|TestAttackFormToolArguments"
	"12.7 nesting the lean paths leave to the SDK|./internal/gateway|TestLeanPathsLeaveDeepMessagesToSDK|TestNestedWithin"
	"12.8 numbers|./internal/gateway|TestAttackOddIDs"
	"12.8 numbers (command)|./internal/backend/command|TestBigIntegersReachArgvExactly"
	"12.9 admin refuses what it cannot open|./internal/gateway|TestAdminRefusesUnopenable"
	"12.9 protocol version, Host, snippets, healthz, store files|./internal/gateway|TestAttackProtocolVersionMismatch|TestAttackHostHeader|TestAttackSnippetReflection|TestAttackHealthzStoreDown|TestAttackStoreFileResource|TestAttackStoreFileResourceAdmin"
	"12.9 IPv6 forms of IPv4|./internal/backend/httpapi|TestEmbeddedLoopbackRefused"
	"12.9 IPv6 forms of IPv4 (policy)|./internal/safehttp|TestPolicyCheck|TestRedirectToMetadataRefusedBeforeDial"
	"T14.1 T14.3 traversal, unknown and disabled server names|./internal/gateway|TestT14_ServerNames"
	"T14.1 server names in the config|./internal/backend/all|TestProblems"
	"T14.2 script in arguments and URLs|./internal/gateway|TestT14_2_ScriptInjection"
	"T14.4 T14.5 Origin, forged session id|./internal/gateway|TestT12_ProtocolErrors"
	"JWT algorithm confusion, wrong audience, expired|./internal/auth|TestJWTRefused|TestJWTAlgorithms"
	"cross-principal MCP sessions|./internal/gateway|TestAuthSessionBoundToPrincipal|TestAttackLegacyLeanCall|TestAttackSSESessionIDs"
	"tool details leak no existence, echo nothing long|./internal/gateway|TestAttackRESTToolName"
	"secrets in audited arguments and refusals|./internal/gateway|TestAttackAuditArguments"
	"cross-principal work sessions|./internal/backend/lowdefy|TestLogATicket"
	"sandbox escapes in expressions|./internal/expr|TestIsolation|TestNoHostObjects|TestVariablesDoNotLeak"
	"file-resource traversal|./internal/gateway|TestAttackFileResourceTraversal|TestT6_Resources|TestConfiguredTemplates"
	"secrets absent from pages, listings, results and admin reads|./e2e|TestSecretsNotShown"
	"XSS in every page (headless Chromium)|./e2e|TestPagesChromium|TestPagesCheckCatchesUnsafePages"
)

failed=()
for g in "${groups[@]}"; do
	IFS='|' read -r name pkg _ <<<"$g"
	tests=${g#*|}
	tests=${tests#*|}
	printf -- '-- %s\n' "$name"
	out=$(go test -count=1 -run "^(${tests})\$" -v "$pkg" 2>&1) && rc=0 || rc=$?
	grep -E '^(--- (PASS|FAIL|SKIP)|FAIL|panic)' <<<"$out" || true
	want=$(tr '|' '\n' <<<"$tests" | grep -vc '\.\*' || true)
	got=$(grep -c '^--- PASS' <<<"$out" || true)
	if [[ $rc -ne 0 ]] || grep -q '^--- SKIP' <<<"$out" || [[ $got -lt $want || $got -eq 0 ]]; then
		echo "FAILED: $name (ran $got of $want tests)"
		[[ $rc -ne 0 ]] && tail -40 <<<"$out"
		failed+=("$name ($pkg)")
	fi
done
if [[ ${#failed[@]} -ne 0 ]]; then
	echo "security: some attacks got through; failed groups (their tests and output are above):"
	printf '  FAILED: %s\n' "${failed[@]}"
	exit 1
fi
echo "security: every attack of the hardening issue was refused"
