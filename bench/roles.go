package main

// The process-separated benchmark re-executes this binary in hidden roles: the REST upstream,
// a bare go-sdk server (the "SDK floor"), and the load client. Each role prints one JSON line
// on stdout when it is ready; the client then reads one JSON operation per line on stdin and
// answers each with one JSON line on stdout. A role ends when its stdin closes.

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// ready is what a server role prints once it listens.
type ready struct {
	Addr string `json:"addr"`
}

// runRole runs this process in role and exits.
func runRole(role string) {
	log.SetPrefix("bench " + role + ": ")
	switch role {
	case "upstream":
		serveRole(restHandler())
	case "sdk":
		// Same garbage-collector setting as `mcpbridge serve`, so the floor is comparable.
		gateway.TuneGC()
		serveRole(sdkFloor(*upstreamURL))
	case "proxy":
		gateway.TuneGC()
		if *profAddrFlag != "" {
			servePprof(*profAddrFlag)
		}
		serveRole(proxyFloor(*upstreamURL, flag.Args()))
	case "client":
		clientRole(os.Stdin, os.Stdout)
	default:
		log.Fatalf("unknown role %q", role)
	}
	os.Exit(0)
}

// serveRole serves h on a loopback port, prints the address and serves until stdin closes.
func serveRole(h http.Handler) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, h)
	if err := json.NewEncoder(os.Stdout).Encode(ready{Addr: ln.Addr().String()}); err != nil {
		log.Fatal(err)
	}
	io.Copy(io.Discard, os.Stdin)
}

// restHandler is the upstream REST endpoint: GET /users/{id} answers a small JSON object.
func restHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /users/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": r.PathValue("id"), "name": "Ada", "verbose": r.URL.Query().Get("verbose") == "true"})
	})
	return mux
}

// sdkFloor is a bare go-sdk server, in both eras, whose get_user tool does what the
// gateway's does at the least cost: one GET on the upstream, the body returned as text. It
// has no argument validation, envelope checks, metrics, audit or mapping, so the distance
// from it to mcpbridge is what mcpbridge adds on top of the SDK's transport.
func sdkFloor(upstream string) http.Handler {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "get_user", Description: "Get a user by id", InputSchema: json.RawMessage(usersSchema)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				ID      string `json:"id"`
				Verbose bool   `json:"verbose"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			r, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/users/%s?verbose=%t", upstream, in.ID, in.Verbose), nil)
			if err != nil {
				return nil, err
			}
			resp, err := hc.Do(r)
			if err != nil {
				return nil, err
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}, nil
		})
	get := func(*http.Request) *mcp.Server { return s }
	legacy := mcp.NewStreamableHTTPHandler(get, nil)
	modern := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			modern.ServeHTTP(w, r)
		} else {
			legacy.ServeHTTP(w, r)
		}
	})
}

// clientOp is one instruction to the client role.
type clientOp struct {
	// Op is "round" (run load and report) or "close" (end the sessions of a target).
	Op string `json:"op"`
	// Target is "rest" (GET the upstream directly), "mcp" (tools/call at URL) or "stdio"
	// (tools/call to children running Command).
	Target  string `json:"target"`
	URL     string `json:"url"`
	Era     string `json:"era,omitempty"`
	Workers int    `json:"workers"`
	// Client is "raw" (hand-written Streamable HTTP) or "sdk" (the go-sdk client).
	Client   string        `json:"client,omitempty"`
	Duration time.Duration `json:"duration,omitempty"`
	Count    int           `json:"count,omitempty"`
	// Tool and Args name the tool to call (get_user {"id":"42","verbose":true} when empty).
	Tool string          `json:"tool,omitempty"`
	Args json.RawMessage `json:"args,omitempty"`
	// Command is the argv of a "stdio" target: a child per worker, spoken to over stdio.
	Command []string `json:"command,omitempty"`
	// Stateless is set for an "mcp" target that answers initialize without a session id
	// (TBXark's mcp-proxy, a stateless mcp-go server): the workers then send none.
	Stateless bool `json:"stateless,omitempty"`
}

// roundResult is the client's answer to a round.
type roundResult struct {
	Calls      int     `json:"calls"`
	Errors     int     `json:"errors"`
	Secs       float64 `json:"secs"`
	P50        float64 `json:"p50_ms"`
	P99        float64 `json:"p99_ms"`
	FirstError string  `json:"first_error,omitempty"`
	Fatal      string  `json:"fatal,omitempty"`
}

// clientRole runs load rounds on request. MCP sessions (one per worker) are opened on a
// target's first round and kept until a close, so rounds measure tools/call only.
func clientRole(in io.Reader, out io.Writer) {
	enc := json.NewEncoder(out)
	if err := enc.Encode(ready{}); err != nil {
		log.Fatal(err)
	}
	type key struct{ target, url, era, client string }
	callers := map[key]*loadTarget{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var op clientOp
		if err := json.Unmarshal(sc.Bytes(), &op); err != nil {
			log.Fatalf("bad operation %q: %v", sc.Text(), err)
		}
		k := key{op.Target, op.URL, op.Era, op.Client}
		switch op.Op {
		case "close":
			if t := callers[k]; t != nil {
				t.close()
				delete(callers, k)
			}
			enc.Encode(roundResult{})
		case "round":
			t := callers[k]
			if t == nil || t.workers < op.Workers {
				if t != nil {
					t.close()
				}
				var err error
				t, err = newLoadTarget(op)
				if err != nil {
					enc.Encode(roundResult{Fatal: err.Error()})
					continue
				}
				callers[k] = t
			}
			r := loadRun(op.Workers, op.Count, op.Duration, t.call)
			rr := roundResult{Calls: r.calls, Errors: r.errors, Secs: r.secs, P50: ms(r.pct(.5)), P99: ms(r.pct(.99)), FirstError: r.firstError}
			enc.Encode(rr)
		default:
			log.Fatalf("unknown operation %q", op.Op)
		}
	}
	for _, t := range callers {
		t.close()
	}
}

// loadTarget is a caller with what it needs closed afterwards.
type loadTarget struct {
	workers int
	call    caller
	close   func()
}

func newLoadTarget(op clientOp) (*loadTarget, error) {
	switch {
	case op.Target == "rest":
		return &loadTarget{workers: op.Workers, call: directCaller(op.URL), close: func() {}}, nil
	case op.Target == "mcp" && op.Client == "sdk":
		call, closeAll, err := sdkCaller(op.URL, op.Workers, op.Era)
		if err != nil {
			return nil, err
		}
		return &loadTarget{workers: op.Workers, call: call, close: closeAll}, nil
	case op.Target == "stdio":
		c, err := newRawStdio(op.Command, op.Era, op.Tool, op.Args, op.Workers)
		if err != nil {
			return nil, err
		}
		return &loadTarget{workers: op.Workers, call: c.callTool, close: c.close}, nil
	case op.Target == "mcp":
		c, err := newRawMCPOpts(op.URL, op.Era, op.Workers, op.Stateless)
		if err != nil {
			return nil, err
		}
		c.tool, c.args = op.Tool, op.Args
		return &loadTarget{workers: op.Workers, call: c.callTool, close: c.close}, nil
	}
	return nil, fmt.Errorf("unknown target %q", op.Target)
}

// proxyFloor is the "go-sdk proxy floor" of -mode upstream: a bare go-sdk server whose echo
// tool forwards each call with a go-sdk client session to the upstream, one upstream session
// (for stdio, one child) per downstream session, as mcpbridge's isolation: per-session does.
// /http forwards to the Streamable HTTP upstream, /stdio to children running command. It has
// no mirroring, forwarding of notifications, validation, audit or metrics: the distance from
// it to mcpbridge is what mcpbridge adds on top of the SDK on both sides.
func proxyFloor(upstream string, command []string) http.Handler {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	mux := http.NewServeMux()
	for _, kind := range []string{"http", "stdio"} {
		var mu sync.Mutex
		sessions := map[string]*mcp.ClientSession{}
		connect := func(ctx context.Context, ss *mcp.ServerSession) (*mcp.ClientSession, error) {
			key := ss.ID()
			mu.Lock()
			defer mu.Unlock()
			if cs := sessions[key]; cs != nil {
				return cs, nil
			}
			c := mcp.NewClient(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
			var t mcp.Transport = &mcp.StreamableClientTransport{Endpoint: upstream, HTTPClient: hc}
			if kind == "stdio" {
				t = &mcp.CommandTransport{Command: exec.Command(command[0], command[1:]...)}
			}
			cs, err := c.Connect(context.Background(), t, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				return nil, err
			}
			sessions[key] = cs
			if key != "" {
				go func() {
					ss.Wait()
					mu.Lock()
					delete(sessions, key)
					mu.Unlock()
					cs.Close()
				}()
			}
			return cs, nil
		}
		s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
		s.AddTool(&mcp.Tool{Name: "echo", Description: "Returns the message", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				cs, err := connect(ctx, req.Session)
				if err != nil {
					return nil, err
				}
				return cs.CallTool(ctx, &mcp.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments})
			})
		get := func(*http.Request) *mcp.Server { return s }
		legacy := mcp.NewStreamableHTTPHandler(get, nil)
		modern := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
		mux.Handle("/"+kind, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
				modern.ServeHTTP(w, r)
			} else {
				legacy.ServeHTTP(w, r)
			}
		}))
	}
	return mux
}

// servePprof serves net/http/pprof on addr, for profiling a role as profserve does serve.
func servePprof(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	go http.Serve(ln, mux)
}
