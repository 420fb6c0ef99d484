package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpbridge/mcpbridge/internal/cli"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"mcpbridge": func() { os.Exit(cli.Main()) },
	})
}

// TestScript runs the CLI scripts in testdata/script (set MCPBRIDGE_UPDATE=1 to rewrite
// their expected output).
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("MCPBRIDGE_UPDATE") != "",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"freeport":  freeport,
			"waithttp":  waithttp,
			"mcpcall":   mcpcall,
			"adminput":  adminput,
			"sleep":     sleep,
			"servefile": servefile,
			"stdoutvar": stdoutvar,
			"waitfor":   waitfor,
		},
	})
}

// adminput URL KEY FILE PUTs the JSON in FILE to an admin API URL with the bearer KEY and
// expects a 2xx answer.
func adminput(ts *testscript.TestScript, neg bool, args []string) {
	req, err := http.NewRequest("PUT", args[0], strings.NewReader(ts.ReadFile(args[2])))
	ts.Check(err)
	req.Header.Set("Authorization", "Bearer "+args[1])
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	ts.Check(err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ok := resp.StatusCode/100 == 2; ok == neg {
		ts.Fatalf("PUT %s: %d %s", args[0], resp.StatusCode, body)
	}
}

// bearerTransport sends a bearer token when it is not empty.
type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if b != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+string(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}

// stdoutvar VAR REGEXP sets $VAR to the first group of REGEXP in the last command's stdout.
func stdoutvar(ts *testscript.TestScript, neg bool, args []string) {
	m := regexp.MustCompile(args[1]).FindStringSubmatch(ts.ReadFile("stdout"))
	if m == nil {
		ts.Fatalf("stdout does not match %s", args[1])
	}
	ts.Setenv(args[0], m[1])
}

// servefile FILE VAR serves FILE over HTTP on loopback until the script ends and sets $VAR
// to its URL.
func servefile(ts *testscript.TestScript, neg bool, args []string) {
	data := ts.ReadFile(args[0])
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(data))
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[1], srv.URL+"/"+args[0])
}

// sleep DURATION waits, e.g. for a file watcher to notice a change.
func sleep(ts *testscript.TestScript, neg bool, args []string) {
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}

// waitfor FILE REGEXP [mcpcall ARGS...] waits up to 30s for FILE (relative to $WORK) to
// match REGEXP (multi-line mode), e.g. for the output of a background command. With an
// mcpcall it makes that call again every half second until then: for a reader that sees
// only what happens after it has started, such as audit tail --follow -n 0.
func waitfor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || (len(args) > 2 && args[2] != "mcpcall") {
		ts.Fatalf("usage: waitfor FILE REGEXP [mcpcall ARGS...]")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if len(args) > 2 {
			mcpcall(ts, false, args[3:])
		}
		if b, err := os.ReadFile(ts.MkAbs(args[0])); err == nil && re.Match(b) {
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(ts.MkAbs(args[0]))
			ts.Fatalf("%s did not match %q within 30s; it holds:\n%s", args[0], args[1], b)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// freeport VAR sets $VAR to a free loopback port.
func freeport(ts *testscript.TestScript, neg bool, args []string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	ts.Setenv(args[0], fmt.Sprint(ln.Addr().(*net.TCPAddr).Port))
	ln.Close()
}

// waithttp URL waits up to 60s (a generous deadline for a busy machine) for URL to answer 200.
func waithttp(ts *testscript.TestScript, neg bool, args []string) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(args[0])
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("%s did not answer", args[0])
}

// mcpcall TARGET VERSION METHOD [NAME [JSON]] connects with the go-sdk client and prints
// the result as JSON. TARGET is an http:// URL or "stdio:" followed by a command line.
func mcpcall(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: mcpcall TARGET VERSION METHOD [NAME [JSON]]")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var tr mcp.Transport
	if strings.HasPrefix(args[0], "stdio:") {
		f := strings.Fields(strings.TrimPrefix(args[0], "stdio:"))
		cmd := exec.Command(f[0], f[1:]...)
		cmd.Dir = ts.Getenv("WORK")
		cmd.Env = os.Environ()
		cmd.Env = append(cmd.Env, "PATH="+ts.Getenv("PATH"))
		for _, name := range []string{"MCPBRIDGE_API_KEY", "MCPBRIDGE_USER", "MCPBRIDGE_ROLES"} {
			if v := ts.Getenv(name); v != "" {
				cmd.Env = append(cmd.Env, name+"="+v)
			}
		}
		tr = &mcp.CommandTransport{Command: cmd}
	} else {
		// $MCPCALL_TOKEN, when set, is sent as a bearer token.
		tr = &mcp.StreamableClientTransport{Endpoint: args[0], HTTPClient: &http.Client{Transport: bearerTransport(ts.Getenv("MCPCALL_TOKEN"))}}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpcall", Version: "1"}, nil)
	cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: args[1]})
	if err != nil {
		if neg {
			fmt.Fprintln(ts.Stderr(), "connect:", err)
			return
		}
		ts.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	var out any
	switch args[2] {
	case "tools/list":
		out, err = cs.ListTools(ctx, nil)
	case "tools/call":
		a := map[string]any{}
		if len(args) > 4 {
			ts.Check(json.Unmarshal([]byte(args[4]), &a))
		}
		out, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: args[3], Arguments: a})
	case "resources/read":
		out, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: args[3]})
	case "prompts/get":
		a := map[string]string{}
		if len(args) > 4 {
			ts.Check(json.Unmarshal([]byte(args[4]), &a))
		}
		out, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: args[3], Arguments: a})
	default:
		ts.Fatalf("unknown method %s", args[2])
	}
	if err != nil {
		if neg {
			ts.Logf("error (expected): %v", err)
			fmt.Fprintln(ts.Stderr(), err)
			return
		}
		ts.Fatalf("%s: %v", args[2], err)
	}
	if neg {
		ts.Fatalf("%s succeeded unexpectedly", args[2])
	}
	b, _ := json.Marshal(out)
	fmt.Fprintln(ts.Stdout(), string(b))
}
