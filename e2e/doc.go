// Package e2e holds mcpbridge's end-to-end tests. They build the real binary, start
// `mcpbridge serve` on a loopback port with the config in testdata/, and drive it with real
// clients: the MCP conformance suite, the MCP Inspector CLI (HTTP in both protocol eras, and
// stdio), and headless Debian Chromium through playwright-core for the HTML pages.
//
// The Node tools live in tools/node and are installed by scripts/setup-node.sh; Chromium is
// installed by scripts/setup-chromium.sh. Tests fail, naming the script, when a tool is missing.
//
// Environment:
//   - MCPBRIDGE_E2E_URL: base URL (e.g. http://127.0.0.1:8080) of an mcpbridge that is already
//     running with testdata/gateway.yaml; the HTTP tests use it instead of building and starting
//     the binary. Tests that need the binary itself (stdio) still build it.
//   - MCPBRIDGE_E2E_ARTIFACTS: a directory that keeps screenshots and conformance results
//     after the run (by default they go to the tests' temporary directories), and the
//     gateway's config copy and log (gateway/gateway.log).
package e2e
