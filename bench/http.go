package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// restServer serves the upstream REST endpoint in this process.
func restServer() string { return serve(restHandler()) }

// usersSchema is the input schema of get_user.
const usersSchema = `{"type":"object","properties":{"id":{"type":"string"},"verbose":{"type":"boolean"}},"required":["id"]}`

// usersConfig is the configuration of the HTTP-tool benchmark: one server, users, whose
// get_user tool is GET {upstream}/users/{id}?verbose=....
func usersConfig(upstream string) string {
	return fmt.Sprintf(`servers:
  users:
    kind: http
    description: Users API
    base_url: %s
    allow_private: true
    tools:
      get_user:
        description: Get a user by id
        inputSchema: %s
        method: GET
        path: /users/{id}
        mappings:
          - {field: id, in: path, direct: id}
          - {field: verbose, in: query, direct: verbose}
`, upstream, usersSchema)
}

func httpGateway(upstream string) string {
	g, _, err := gatewaytest.Open(os.TempDir(), usersConfig(upstream), gateway.Options{})
	if err != nil {
		log.Fatalf("http bench gateway: %v", err)
	}
	return serve(g.Handler()) + "/mcp/users"
}

// runHTTP compares an HTTP tool through mcpbridge with calling the REST endpoint directly,
// at 1 and 16 concurrent clients, and checks that open descriptors return to baseline.
func runHTTP() {
	up := restServer()
	gw := httpGateway(up)
	directCall := directCaller(up) // one client (and connection pool) for every round
	fmt.Printf("\nHTTP tool (GET /users/{id} on loopback), %d rounds, median of rounds\n", *rounds)
	fmt.Printf("%-7s %-26s %10s %9s %9s %7s\n", "clients", "target", "calls/s", "p50", "p99", "errors")
	for _, c := range []struct {
		n   int
		era string
	}{{1, "2025-11-25"}, {1, "2026-07-28"}, {16, "2025-11-25"}, {16, "2026-07-28"}} {
		n := c.n
		direct := func() result { return loadFunc(n, directCall) }
		through := func() result { return loadFunc(n, mcpCaller(gw, n, c.era)) }
		direct()
		through()
		var rd, rg, p50d, p50g, p99d, p99g []float64
		errsD, errsG := 0, 0
		for range *rounds {
			d := direct()
			g := through()
			rd, rg = append(rd, d.rate()), append(rg, g.rate())
			p50d, p50g = append(p50d, ms(d.pct(.5))), append(p50g, ms(g.pct(.5)))
			p99d, p99g = append(p99d, ms(d.pct(.99))), append(p99g, ms(g.pct(.99)))
			errsD += d.errors
			errsG += g.errors
		}
		fmt.Printf("%-7d %-26s %10.0f %7.3fms %7.3fms %7d\n", n, "direct REST", median(rd), median(p50d), median(p99d), errsD)
		fmt.Printf("%-7d %-26s %10.0f %7.3fms %7.3fms %7d\n", n, "mcpbridge ("+c.era+")", median(rg), median(p50g), median(p99g), errsG)
		fmt.Printf("%-7d added p50 %.3fms (goal <= 0.3ms with 1 client); throughput %.0f calls/s (goal >= 3000 with 16)\n",
			n, median(p50g)-median(p50d), median(rg))
	}
	call := mcpCaller(gw, 16, "2026-07-28")
	loadCount(16, 3200, call) // warm: every worker's and every upstream connection is open
	before := openFDs()
	r := loadCount(16, 20000, call)
	time.Sleep(200 * time.Millisecond)
	after := openFDs()
	fmt.Printf("descriptors (client, gateway and upstream in this process): %d before, %d after 20,000 calls through mcpbridge (%d errors)\n", before, after, r.errors)
}

type caller func(worker int) error

func directCaller(base string) caller {
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	return func(int) error {
		resp, err := c.Get(base + "/users/42?verbose=true")
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return err
	}
}

// mcpCaller returns a caller with one go-sdk client session per worker in protocol
// version era.
func mcpCaller(url string, workers int, era string) caller {
	call, _, err := sdkCaller(url, workers, era)
	if err != nil {
		log.Fatal(err)
	}
	return call
}

// sdkCaller returns a caller with one go-sdk client session per worker in protocol version
// era, and a function that closes the sessions.
func sdkCaller(url string, workers int, era string) (caller, func(), error) {
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	hc := &http.Client{Transport: tr}
	sessions := make([]*mcp.ClientSession, workers)
	closeAll := func() {
		for _, cs := range sessions {
			if cs != nil {
				cs.Close()
			}
		}
		tr.CloseIdleConnections()
	}
	for i := range sessions {
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: era})
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("connect %s: %v", url, err)
		}
		sessions[i] = cs
	}
	args := map[string]any{"id": "42", "verbose": true}
	call := func(w int) error {
		res, err := sessions[w].CallTool(context.Background(), &mcp.CallToolParams{Name: "get_user", Arguments: args})
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("tool error")
		}
		return nil
	}
	return call, closeAll, nil
}

func loadFunc(workers int, call caller) result {
	return loadRun(workers, 0, *duration, call)
}

func loadCount(workers, n int, call caller) result {
	return loadRun(workers, n, 0, call)
}

func loadRun(workers, n int, d time.Duration, call caller) result {
	var mu sync.Mutex
	var all []time.Duration
	errs := 0
	var first error
	var wg sync.WaitGroup
	start := time.Now()
	per := 0
	if n > 0 {
		per = n / workers
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, 4096)
			e := 0
			var firstErr error
			for i := 0; ; i++ {
				if n > 0 && i >= per || n == 0 && time.Since(start) > d {
					break
				}
				t0 := time.Now()
				if err := call(w); err != nil {
					e++
					if firstErr == nil {
						firstErr = err
					}
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			all = append(all, lat...)
			errs += e
			if first == nil {
				first = firstErr
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	r := result{calls: len(all), errors: errs, secs: secs, lat: all}
	if first != nil {
		r.firstError = first.Error()
	}
	return r
}

func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}
