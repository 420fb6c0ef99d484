package gateway_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// Issue 12.7: a body sent at one byte per 300 ms is cut by read_timeout, and the gateway
// answers others meanwhile.
func TestAttackSlowBody(t *testing.T) {
	lb := serveLoopback(t, limitsSection("{read_timeout: 1s, drain_period: 1s}")+echoServers, gateway.Options{}, nil)
	conn, err := net.Dial("tcp", lb.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	fmt.Fprintf(conn, "POST /mcp/demo HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", lb.addr, len(body))
	start := time.Now()
	cut := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(conn) // until the server answers and closes, or closes
		cut <- string(b)
	}()
	var answer string
	var cutAfter time.Duration
	ticker := time.NewTicker(300 * time.Millisecond)
	defer ticker.Stop()
	sent := 0
loop:
	for sent < len(body) {
		select {
		case answer = <-cut:
			cutAfter = time.Since(start)
			break loop
		case <-ticker.C:
			if _, err := conn.Write([]byte{body[sent]}); err != nil {
				break loop
			}
			sent++
			if sent == 5 { // others are served while the slow body trickles in
				resp, err := clientFrom("127.0.0.2").Get(lb.base + "/healthz")
				if err != nil || resp.StatusCode != 200 {
					t.Errorf("healthz during slow body: %v %v", resp, err)
				}
			}
		}
	}
	if cutAfter == 0 {
		select {
		case answer = <-cut:
			cutAfter = time.Since(start)
		case <-time.After(30 * time.Second):
		}
	}
	if cutAfter == 0 {
		t.Fatalf("slow body: connection still open after %s with %d of %d bytes sent", time.Since(start).Round(time.Millisecond), sent, len(body))
	}
	status := strings.SplitN(answer, "\r\n", 2)[0]
	t.Logf("slow body: cut after %s with %d of %d bytes sent; answer %q", cutAfter.Round(time.Millisecond), sent, len(body), status)
	// The outcome, not the time: a body that took longer than read_timeout to arrive is
	// cut (408) before all of it is sent (about 18 s at this pace, against 1 s).
	if sent >= len(body) || !strings.Contains(status, "408") {
		t.Errorf("slow body cut after %s with %d of %d bytes sent and %q; want it cut early with 408", cutAfter, sent, len(body), status)
	}
}

// Issue 12.7: an idle keep-alive connection is closed after idle_timeout.
func TestAttackIdleKeepAlive(t *testing.T) {
	lb := serveLoopback(t, limitsSection("{idle_timeout: 1s, drain_period: 1s}")+echoServers, gateway.Options{}, nil)
	conn, err := net.Dial("tcp", lb.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", lb.addr)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(30 * time.Second)) // idle_timeout is 1s, the default 60s
	_, err = br.ReadByte()
	held := time.Since(start)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("idle keep-alive connection still open after %s", held.Round(time.Millisecond))
	}
	t.Logf("idle keep-alive connection closed by the gateway after %s (%v)", held.Round(time.Millisecond), err)
}

// Issue 12.7: one client holding connections open cannot take every descriptor: past
// connections_per_client it is answered 429 and cut at once, and other clients are served.
func TestAttackConnectionFlood(t *testing.T) {
	lb := serveLoopback(t, limitsSection("{connections_per_client: 10, drain_period: 1s}")+echoServers, gateway.Options{}, nil)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.1")}}
	fdsBefore := openFDs()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 40 {
		c, err := d.Dial("tcp", lb.addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// A refused connection gets its answer at once; an accepted one waits for a request.
	answers := make([]string, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(time.Now().Add(time.Second))
			b := make([]byte, 512)
			n, _ := c.Read(b)
			answers[i] = string(b[:n])
		}()
	}
	wg.Wait()
	refused := 0
	for _, a := range answers {
		if a == "" {
			continue
		}
		refused++
		if refused == 1 {
			t.Logf("refusal: %q", a)
		}
		if !strings.Contains(a, " 429 ") || !strings.Contains(a, "Retry-After") {
			t.Errorf("refusal is not a 429 with Retry-After: %q", a)
		}
	}
	held := 40 - refused
	t.Logf("one client opened 40 idle connections: %d held by the gateway, %d refused; descriptors %d → %d",
		held, refused, fdsBefore, openFDs())
	if held != 10 {
		t.Errorf("held %d connections from one client; want 10", held)
	}
	resp, err := clientFrom("127.0.0.2").Get(lb.base + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("another client during the flood: %v %v", resp, err)
	}
}

// read_timeout bounds reading a request, not serving it: a call that runs longer than it,
// and an event stream held open longer than it, are not cut.
func TestReadTimeoutSparesLongCalls(t *testing.T) {
	lb := serveLoopback(t, limitsSection("{read_timeout: 300ms, idle_timeout: 300ms, drain_period: 1s}")+`servers:
  slow:
    kind: command
    description: slow
    tools:
      nap: {description: sleeps, inputSchema: {type: object}, argv: [sh, -c, "sleep 0.7; echo rested"], timeout: 5s}
`, gateway.Options{}, nil)
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		cs := connectFrom(t, "127.0.0.1", lb.base+"/mcp/slow", v)
		if r := call(t, cs, "nap", map[string]any{}); text(t, r) != "rested\n" {
			t.Errorf("%s: a 0.7s call with read_timeout 300ms: %q", v, text(t, r))
		}
	}
	req, _ := http.NewRequest("GET", lb.base+"/mcp/slow/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// Past read_timeout (300ms), the stream is still open: the endpoint event is followed
	// by nothing, and the read below times out rather than ending. A loaded machine only
	// makes the naps longer, so this can pass falsely (a late cut unseen), never fail
	// falsely.
	time.Sleep(700 * time.Millisecond)
	done := make(chan error, 1)
	go func() { _, err := io.ReadAll(resp.Body); done <- err }()
	select {
	case err := <-done:
		t.Errorf("SSE stream ended after read_timeout: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
}
