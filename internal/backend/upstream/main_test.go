package upstream_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/cli"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv("UPSTREAM_TEST_SERVER"); mode != "" {
		runTestServer(mode)
		return
	}
	if os.Getenv("UPSTREAM_TEST_MCPBRIDGE") != "" {
		// The test binary is mcpbridge itself (os.Args[1:] are its arguments), as the
		// command-line tests run it: for `mcpbridge stdio`.
		os.Exit(cli.Main())
	}
	os.Exit(m.Run())
}

// self is the test binary, which is also the upstream test server.
func self(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// stdioServer returns the YAML of a single-upstream server definition (at indent 4) that
// runs the test server over stdio, with extra fields appended.
func stdioUpstream(t testing.TB, env map[string]string, extra string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "    command: [%q, -test.run=^$]\n", self(t))
	b.WriteString("    env:\n      UPSTREAM_TEST_SERVER: stdio\n")
	for k, v := range env {
		fmt.Fprintf(&b, "      %s: %q\n", k, v)
	}
	b.WriteString(extra)
	return b.String()
}

// startHTTPServer runs the test server over Streamable HTTP in another process and
// returns its URL.
func startHTTPServer(t testing.TB, env ...string) string {
	t.Helper()
	return startNetServer(t, "http", env...)
}

// startNetServer runs the test server in mode (http or sse) in another process and
// returns its URL.
func startNetServer(t testing.TB, mode string, env ...string) string {
	t.Helper()
	url, _ := startNetServerStop(t, mode, env...)
	return url
}

// startNetServerStop is startNetServer that also returns a function that stops the server.
func startNetServerStop(t testing.TB, mode string, env ...string) (string, func()) {
	t.Helper()
	cmd := exec.Command(self(t), "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, "UPSTREAM_TEST_SERVER="+mode)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := sync.OnceFunc(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	t.Cleanup(stop)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the HTTP test server did not start: %v", err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "LISTEN ")
	if !ok {
		t.Fatalf("the HTTP test server said %q", line)
	}
	return "http://" + addr + "/mcp", stop
}

// start serves yaml with a gateway for the test.
func start(t testing.TB, yaml string) *gatewaytest.Server {
	t.Helper()
	return gatewaytest.Start(t, yaml, gateway.Options{})
}

// client is a downstream client with every handler a test may need.
type client struct {
	progress    chan *mcp.ProgressNotificationParams
	logs        chan *mcp.LoggingMessageParams
	listChanged chan struct{}
}

func newClient() (*client, *mcp.Client) {
	c := &client{
		progress:    make(chan *mcp.ProgressNotificationParams, 100),
		logs:        make(chan *mcp.LoggingMessageParams, 100),
		listChanged: make(chan struct{}, 10),
	}
	mc := mcp.NewClient(&mcp.Implementation{Name: "downstream", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			v := "Ada"
			if strings.HasPrefix(req.Params.Message, "second") {
				v = "Grace"
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": v, "v": v}}, nil
		},
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "test-model", Role: "assistant", Content: &mcp.TextContent{Text: "hello from the model"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			c.progress <- req.Params
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			c.logs <- req.Params
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { c.listChanged <- struct{}{} },
	})
	mc.AddRoots(&mcp.Root{URI: "file:///work/a", Name: "a"}, &mcp.Root{URI: "file:///work/b", Name: "b"})
	return c, mc
}

// connect opens a downstream session on /mcp/name at a protocol version.
func connect(t testing.TB, srv *gatewaytest.Server, name, version string) (*client, *mcp.ClientSession) {
	t.Helper()
	c, mc := newClient()
	cs, err := mc.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/" + name}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s (%s): %v", name, version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return c, cs
}

func callTool(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func text(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "")
}

// wantText calls a tool and checks its text (and that it is not an error).
func wantText(t testing.TB, cs *mcp.ClientSession, name string, args any, want string) {
	t.Helper()
	r := callTool(t, cs, name, args)
	if r.IsError || text(r) != want {
		t.Errorf("%s = %q (isError %v), want %q", name, text(r), r.IsError, want)
	}
}

// wantError calls a tool and checks that it fails with a text containing each of want.
func wantError(t testing.TB, cs *mcp.ClientSession, name string, args any, want ...string) string {
	t.Helper()
	r := callTool(t, cs, name, args)
	got := text(r)
	if !r.IsError {
		t.Errorf("%s = %q, want a tool error", name, got)
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s error = %q, want it to contain %q", name, got, w)
		}
	}
	return got
}
