package gateway_test

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// A REST tools/call whose body trickles in a byte every 300 ms is cut by limits.read_timeout
// with 408 and a message naming the limit, while other clients are served.
func TestAttackSlowRESTBody(t *testing.T) {
	lb := serveLoopback(t, limitsSection("{read_timeout: 1s, drain_period: 1s}")+echoServers, gateway.Options{}, nil)
	conn, err := net.Dial("tcp", lb.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"name":"echo","arguments":{"message":"slowly, slowly"}}`
	fmt.Fprintf(conn, "POST /api/mcp/demo/tools/call HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", lb.addr, len(body))
	start := time.Now()
	cut := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(conn)
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
			if sent == 2 {
				if resp, err := clientFrom("127.0.0.2").Get(lb.base + "/api/mcp/demo/tools"); err != nil || resp.StatusCode != 200 {
					t.Errorf("another client during the slow body: %v %v", resp, err)
				}
			}
		}
	}
	if cutAfter == 0 {
		select {
		case answer = <-cut:
			cutAfter = time.Since(start)
		case <-time.After(30 * time.Second):
			t.Fatalf("slow REST body: connection still open after %s with %d of %d bytes sent", time.Since(start).Round(time.Millisecond), sent, len(body))
		}
	}
	status, rest, _ := strings.Cut(answer, "\r\n")
	_, respBody, _ := strings.Cut(rest, "\r\n\r\n")
	t.Logf("slow REST body: cut after %s with %d of %d bytes sent; %q %s", cutAfter.Round(time.Millisecond), sent, len(body), status, respBody)
	// The outcome, not the time: cut (408) before all of the body was sent (about 17 s at
	// this pace, against a read_timeout of 1 s).
	if sent >= len(body) || !strings.Contains(status, "408") || !strings.Contains(respBody, "limits.read_timeout") {
		t.Errorf("slow REST body cut after %s with %d of %d bytes sent and %q %s; want it cut early with 408 and a message naming limits.read_timeout", cutAfter, sent, len(body), status, respBody)
	}
}
