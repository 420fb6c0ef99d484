package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// nodeTools are the Node 22 binary and the tools installed in tools/node by scripts/setup-node.sh.
type nodeTools struct {
	Node        string // Node 22 binary
	Conformance string // @modelcontextprotocol/conformance CLI script
	Inspector   string // @modelcontextprotocol/inspector CLI script
	Dir         string // tools/node
}

var (
	nodeOnce sync.Once
	nodeVal  nodeTools
	nodeErr  error
)

// requireNodeTools returns the Node tools; when any is missing or Node is not version 22 the
// test skips naming scripts/setup-node.sh, or fails under MCPBRIDGE_TEST_REQUIRE_ALL=1 (testenv).
func requireNodeTools(t testing.TB) nodeTools {
	t.Helper()
	nodeOnce.Do(func() { nodeVal, nodeErr = findNodeTools() })
	if nodeErr != nil {
		testenv.Missing(t, "the e2e Node tools ("+nodeErr.Error()+")", "scripts/setup-node.sh")
	}
	return nodeVal
}

func findNodeTools() (nodeTools, error) {
	dir := filepath.Join(repoRoot, "tools", "node")
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" {
		return nodeTools{}, fmt.Errorf("no Node 22 package for GOARCH %s", runtime.GOARCH)
	}
	tools := nodeTools{
		Node:        filepath.Join(dir, "node_modules", "node-linux-"+arch, "bin", "node"),
		Conformance: filepath.Join(dir, "node_modules", ".bin", "conformance"),
		Inspector:   filepath.Join(dir, "node_modules", ".bin", "inspector"),
		Dir:         dir,
	}
	for _, p := range []string{tools.Node, tools.Conformance, tools.Inspector, filepath.Join(dir, "node_modules", "playwright-core", "package.json")} {
		if _, err := os.Stat(p); err != nil {
			return nodeTools{}, fmt.Errorf("e2e tool missing: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, tools.Node, "--version").Output()
	if err != nil {
		return nodeTools{}, fmt.Errorf("running %s --version: %w", tools.Node, err)
	}
	if v := strings.TrimSpace(string(out)); !strings.HasPrefix(v, "v22.") {
		return nodeTools{}, fmt.Errorf("%s is %s, want v22.x", tools.Node, v)
	}
	return tools, nil
}

// requireChromium returns Debian's chromium; when it is not installed the test skips naming
// scripts/setup-chromium.sh, or fails under MCPBRIDGE_TEST_REQUIRE_ALL=1 (testenv).
func requireChromium(t testing.TB) string {
	t.Helper()
	return testenv.Chromium(t)
}
