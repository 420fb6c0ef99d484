package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modernEra is the sessionless protocol version; legacyEra the newest version with sessions.
const (
	modernEra = "2026-07-28"
	legacyEra = "2025-11-25"
)

// serveOptions says how to run one `mcpbridge serve` process.
type serveOptions struct {
	// Name names the process in logs and failure messages; its log is Dir/Name.log.
	Name string
	// Dir holds the log (and is the process's working directory).
	Dir string
	// Config is the path of the config file.
	Config string
	// Store is the --store flag ("" keeps the config's store).
	Store string
	// Listen is the address to listen on ("" picks a free loopback port; a restart passes
	// the address of the process it replaces).
	Listen string
	// Env is added to the test's environment.
	Env []string
	// Args are more flags of serve (e.g. --log-level warn).
	Args []string
}

// startServe runs `mcpbridge serve` as described by o, waits until GET /healthz answers 200
// and stops it (SIGTERM, then SIGKILL) when the test ends. The test fails with the process's
// log when it does not start.
func startServe(t *testing.T, o serveOptions) *gateway {
	t.Helper()
	bin := mcpbridgeBinary(t)
	listen := o.Listen
	if listen == "" {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		listen = fmt.Sprintf("127.0.0.1:%d", port)
	}
	logPath := filepath.Join(serveLogDir(t, o.Dir), o.Name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatalf("creating %s: %v", logPath, err)
	}
	args := []string{"serve", "--config", o.Config, "--listen", listen}
	if o.Store != "" {
		args = append(args, "--store", o.Store)
	}
	args = append(args, o.Args...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = o.Dir
	// The state directory (audit.spill_dir's default) is the test's, never the user's.
	cmd.Env = append(append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(o.Dir, "state")), o.Env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		t.Fatalf("starting %s: %v", o.Name, err)
	}
	g := &gateway{Base: "http://" + listen, Config: o.Config, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		g.waitErr = cmd.Wait()
		logFile.Close()
		close(g.done)
	}()
	t.Cleanup(g.stop)
	if err := g.waitReady(30 * time.Second); err != nil {
		t.Fatalf("%s (%s): %v; its log:\n%s", o.Name, strings.Join(cmd.Args, " "), err, g.LogTail())
	}
	return g
}

// serveLogDir is where startServe writes the logs of a test's serve processes:
// $MCPBRIDGE_E2E_ARTIFACTS/logs/<test name> when set (kept after the run for people and for
// scripts/secrets-scan.sh), else dir.
func serveLogDir(t *testing.T, dir string) string {
	base := os.Getenv("MCPBRIDGE_E2E_ARTIFACTS")
	if base == "" {
		return dir
	}
	d := filepath.Join(base, "logs", strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatalf("creating %s: %v", d, err)
	}
	return d
}

// kill ends the gateway's process group with SIGKILL (no drain, no cleanup) and waits for it.
func (g *gateway) kill() {
	_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
	<-g.done
}

// pid is the gateway's process id.
func (g *gateway) pid() int { return g.cmd.Process.Pid }

// roundRobin is a reverse proxy that sends each request to the next of its targets in turn,
// the way a load balancer without sticky sessions does, and records where each went.
type roundRobin struct {
	targets []*url.URL
	n       atomic.Uint64

	mu   sync.Mutex
	hits []proxyHit
}

// proxyHit is one proxied request: the replica that served it and the MCP method and name
// the client announced in the Mcp-Method and Mcp-Name headers (modern era).
type proxyHit struct {
	Replica      int
	Method, Name string
}

// newRoundRobin returns the proxy state of one proxy in front of bases.
func newRoundRobin(t *testing.T, bases []string) *roundRobin {
	t.Helper()
	rr := &roundRobin{}
	for _, b := range bases {
		u, err := url.Parse(b)
		if err != nil {
			t.Fatalf("proxy target %q: %v", b, err)
		}
		rr.targets = append(rr.targets, u)
	}
	return rr
}

// startRoundRobin starts a round-robin proxy on loopback in front of bases and returns its
// base URL; it is closed when the test ends.
func startRoundRobin(t *testing.T, bases ...string) (*roundRobin, string) {
	t.Helper()
	rr := newRoundRobin(t, bases)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			i := int((rr.n.Add(1) - 1) % uint64(len(rr.targets)))
			r.SetURL(rr.targets[i])
			rr.mu.Lock()
			rr.hits = append(rr.hits, proxyHit{Replica: i, Method: r.In.Header.Get("Mcp-Method"), Name: r.In.Header.Get("Mcp-Name")})
			rr.mu.Unlock()
		},
		FlushInterval: -1,
	}
	srv := httptest.NewServer(bufferBody(proxy))
	t.Cleanup(srv.Close)
	return rr, srv.URL
}

// startSticky starts a proxy in front of bases that routes the way docs/deployment.md tells a
// load balancer to route legacy-era clients: it learns which replica minted each
// Mcp-Session-Id from the answer (as HAProxy's `stick store-response`) and sends every
// request carrying that id there; requests without one go round robin.
func startSticky(t *testing.T, bases ...string) (*roundRobin, string) {
	t.Helper()
	rr := newRoundRobin(t, bases)
	var learned sync.Map // session id → replica index
	const replicaHeader = "X-E2e-Replica"
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			i := -1
			if v, ok := learned.Load(r.In.Header.Get("Mcp-Session-Id")); ok {
				i = v.(int)
			} else {
				i = int((rr.n.Add(1) - 1) % uint64(len(rr.targets)))
			}
			r.SetURL(rr.targets[i])
			r.Out.Header.Set(replicaHeader, fmt.Sprint(i))
			rr.mu.Lock()
			rr.hits = append(rr.hits, proxyHit{Replica: i})
			rr.mu.Unlock()
		},
		ModifyResponse: func(resp *http.Response) error {
			if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
				var i int
				fmt.Sscan(resp.Request.Header.Get(replicaHeader), &i)
				learned.Store(sid, i)
			}
			return nil
		},
		FlushInterval: -1,
	}
	srv := httptest.NewServer(bufferBody(proxy))
	t.Cleanup(srv.Close)
	return rr, srv.URL
}

// bufferBody reads a request's whole body before handing the request to h, as NGINX
// (proxy_request_buffering) and HAProxy do. Without it httputil.ReverseProxy cuts streamed
// answers: when the upstream sends its first bytes (the SSE priming event) before the proxy's
// transport has seen the end of the request body, net/http's server discards the body's rest
// under the transport, which then closes the upstream connection mid-answer.
func bufferBody(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		h.ServeHTTP(w, r)
	})
}

// served returns how many requests each target served.
func (rr *roundRobin) served() []int {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	n := make([]int, len(rr.targets))
	for _, h := range rr.hits {
		n[h.Replica]++
	}
	return n
}

// toolCalls returns the replicas that served the tools/call requests, in order, with the
// tools' names.
func (rr *roundRobin) toolCalls() []proxyHit {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	var out []proxyHit
	for _, h := range rr.hits {
		if h.Method == "tools/call" {
			out = append(out, h)
		}
	}
	return out
}

// bearer is an http.RoundTripper that adds an API key to every request.
type bearer struct {
	key  string
	base http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.key != "" {
		r.Header.Set("Authorization", "Bearer "+b.key)
	}
	base := b.base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}

// connectMCP connects a go-sdk client to endpoint in the protocol era era with the API key
// key ("" for none), without reconnect retries.
func connectMCP(ctx context.Context, endpoint, key, era string, tr http.RoundTripper) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	return c.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: &http.Client{Transport: bearer{key: key, base: tr}},
		MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: era})
}

// callTool calls a tool and returns its text, or an error for a protocol error or (unless
// wantError) a tool error result.
func callTool(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		return resultText(res), fmt.Errorf("%s: tool error: %s", name, resultText(res))
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return "", fmt.Errorf("%s: structured content: %w", name, err)
		}
		return string(b), nil
	}
	return resultText(res), nil
}
