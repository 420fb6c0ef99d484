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
)

// chromiumPath is where Debian's chromium package puts the browser.
const chromiumPath = "/usr/bin/chromium"

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

// requireNodeTools returns the Node tools, failing the test (never skipping) with a message that
// names scripts/setup-node.sh when any is missing or Node is not version 22.
func requireNodeTools(t testing.TB) nodeTools {
	t.Helper()
	nodeOnce.Do(func() { nodeVal, nodeErr = findNodeTools() })
	if nodeErr != nil {
		t.Fatalf("%v\nInstall the e2e Node tools with: scripts/setup-node.sh", nodeErr)
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

// requireChromium fails the test (never skips) when Debian's chromium is not installed.
func requireChromium(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("headless Chromium is missing (%v)\nInstall it with: scripts/setup-chromium.sh", err)
	}
	return chromiumPath
}
