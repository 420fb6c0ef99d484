// Package e2e holds mcpbridge's end-to-end tests. They build the real binary, start
// `mcpbridge serve` on a loopback port with the config in testdata/, and drive it with real
// clients: the MCP conformance suite, the MCP Inspector CLI (HTTP in both protocol eras, and
// stdio), and headless Debian Chromium through playwright-core for the HTML pages.
//
// The suites of issue 11 live here too: replicas (two serve processes on one PostgreSQL
// behind a round-robin proxy, replicas_test.go), faults (kill -9 during a Lowdefy call,
// PostgreSQL restarted under load, upstream faults, faults_test.go), load (load_test.go) and
// the secrets checks (secrets_test.go, with the canary secrets of
// testdata/secret-canaries.txt that TestMain puts in the environment of every process).
//
// The docs are tested here too: the README's tour runs as written (tour_test.go), and every
// Inspector command of the README, the docs and the pages is pinned and no known stale phrase
// is left (docs_test.go).
//
// The Node tools live in tools/node and are installed by scripts/setup-node.sh; Chromium is
// installed by scripts/setup-chromium.sh. A test whose tool is missing skips naming the script,
// or fails under MCPBRIDGE_TEST_REQUIRE_ALL=1 (make test; see internal/testenv).
//
// Environment:
//   - MCPBRIDGE_E2E_URL: base URL (e.g. http://127.0.0.1:8080) of an mcpbridge that is already
//     running with testdata/gateway.yaml; the HTTP tests use it instead of building and starting
//     the binary. Tests that need the binary itself (stdio) still build it.
//   - MCPBRIDGE_E2E_ARTIFACTS: a directory that keeps screenshots and conformance results
//     after the run (by default they go to the tests' temporary directories), and the
//     gateway's config copy and log (gateway/gateway.log), and the logs of the serve processes
//     other tests start (logs/<test>/).
//   - MCPBRIDGE_LOAD_CLIENTS, MCPBRIDGE_LOAD_DURATION: the size of TestLoad (default 1000
//     clients for 10s per protocol era).
package e2e
