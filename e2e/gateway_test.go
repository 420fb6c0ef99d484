package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// gatewayConfig is the config every e2e test serves (relative to this package's directory).
const gatewayConfig = "testdata/gateway.yaml"

// gateway is a running `mcpbridge serve`.
type gateway struct {
	// Base is the gateway's base URL, e.g. http://127.0.0.1:41234.
	Base string
	// Config is the path of the config file it serves (a copy of gatewayConfig in a temporary
	// directory, so nothing the gateway writes next to its config lands in testdata/).
	Config string

	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed when the process has exited
	waitErr error
}

// MCPURL returns the MCP endpoint of one server.
func (g *gateway) MCPURL(server string) string { return g.Base + "/mcp/" + server }

// LogTail returns the last lines of the gateway's stderr, for failure messages.
func (g *gateway) LogTail() string {
	if g.logPath == "" {
		return "(gateway started outside the test: no log)"
	}
	data, err := os.ReadFile(g.logPath)
	if err != nil {
		return fmt.Sprintf("(reading %s: %v)", g.logPath, err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}

var (
	sharedMu  sync.Mutex
	shared    *gateway
	sharedErr error
)

// sharedGateway returns the gateway shared by all tests of the run, starting it on first use:
// MCPBRIDGE_E2E_URL when set, else the binary built by mcpbridgeBinary serving gatewayConfig on
// a free loopback port. It is stopped when TestMain ends.
func sharedGateway(t *testing.T) *gateway {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil && sharedErr == nil {
		if url := os.Getenv("MCPBRIDGE_E2E_URL"); url != "" {
			shared = &gateway{Base: strings.TrimRight(url, "/")}
			shared.Config, sharedErr = copyConfig(gatewayConfig, binaryDir)
		} else {
			bin := mcpbridgeBinary(t)
			dir := binaryDir
			if keep := os.Getenv("MCPBRIDGE_E2E_ARTIFACTS"); keep != "" {
				dir = filepath.Join(keep, "gateway")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatalf("creating %s: %v", dir, err)
				}
			}
			shared, sharedErr = startGateway(bin, gatewayConfig, dir)
		}
	}
	if sharedErr != nil {
		t.Fatalf("starting the gateway: %v", sharedErr)
	}
	select {
	case <-shared.done:
		t.Fatalf("the gateway exited early (%v); its log:\n%s", shared.waitErr, shared.LogTail())
	default:
	}
	return shared
}

// sharedLogPath is the log of the shared gateway when this run started it ("" otherwise).
func sharedLogPath() string {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil {
		return ""
	}
	return shared.logPath
}

func stopSharedGateways() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil {
		shared.stop()
	}
}

// copyConfig copies a config file into dir and returns the copy's path.
func copyConfig(src, dir string) (string, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return "", fmt.Errorf("reading config %s: %w", src, err)
	}
	dst := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		return "", fmt.Errorf("copying config to %s: %w", dst, err)
	}
	// The files a config names (prompt images) lie next to it.
	pngs, _ := filepath.Glob(filepath.Join(filepath.Dir(src), "*.png"))
	for _, p := range pngs {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", p, err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644); err != nil {
			return "", fmt.Errorf("copying %s: %w", p, err)
		}
	}
	return dst, nil
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startGateway runs `bin serve --config CONFIG --listen 127.0.0.1:PORT` with a copy of config in
// dir, its stderr in dir/gateway.log, and waits until GET /healthz answers 200.
func startGateway(bin, config, dir string) (*gateway, error) {
	cfg, err := copyConfig(config, dir)
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "gateway.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", logPath, err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, "serve", "--config", cfg, "--listen", listen)
	cmd.Dir = dir
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", strings.Join(cmd.Args, " "), err)
	}
	g := &gateway{Base: "http://" + listen, Config: cfg, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		g.waitErr = cmd.Wait()
		logFile.Close()
		close(g.done)
	}()
	if err := g.waitReady(30 * time.Second); err != nil {
		g.stop()
		return nil, fmt.Errorf("%s: %w; its log:\n%s", strings.Join(cmd.Args, " "), err, g.LogTail())
	}
	fmt.Fprintf(os.Stderr, "e2e: gateway ready at %s (log %s)\n", g.Base, logPath)
	return g, nil
}

// waitReady polls GET /healthz until it answers 200, the process exits, or the timeout passes.
func (g *gateway) waitReady(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.Base+"/healthz", nil)
		if err != nil {
			return fmt.Errorf("building the /healthz request: %w", err)
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Errorf("GET /healthz: %s", resp.Status)
		} else {
			last = err
		}
		select {
		case <-g.done:
			return fmt.Errorf("the gateway exited before it was ready (%v)", g.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("not ready after %s: %w", timeout, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stop ends the gateway: SIGTERM to its process group, SIGKILL after 5 s.
func (g *gateway) stop() {
	if g.cmd == nil || g.cmd.Process == nil {
		return
	}
	pgid := -g.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-g.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		<-g.done
	}
	var exitErr *exec.ExitError
	if g.waitErr != nil && !errors.As(g.waitErr, &exitErr) {
		fmt.Fprintf(os.Stderr, "e2e: waiting for the gateway: %v\n", g.waitErr)
	}
}
