package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// recordedRequest is what a recordingProxy saw of one client request.
type recordedRequest struct {
	HTTPMethod      string
	RPCMethod       string // JSON-RPC method of a POST body ("" when not JSON-RPC)
	ProtocolVersion string // MCP-Protocol-Version header
	SessionID       string // Mcp-Session-Id header
	Status          int    // HTTP status of the gateway's response
}

func (r recordedRequest) String() string {
	return fmt.Sprintf("%s %s version=%q session=%t -> %d", r.HTTPMethod, r.RPCMethod, r.ProtocolVersion, r.SessionID != "", r.Status)
}

// recordingProxy is a reverse proxy in front of the gateway that records the MCP requests a real
// client sends, so a test can check which protocol era the client actually used.
type recordingProxy struct {
	URL string // the proxy's base URL

	mu       sync.Mutex
	requests []recordedRequest
}

// newRecordingProxy starts a recording reverse proxy to target (a base URL) for the test.
func newRecordingProxy(t *testing.T, target string) *recordingProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("parsing gateway URL %q: %v", target, err)
	}
	p := &recordingProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1 // stream SSE responses as they come
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := recordedRequest{
			HTTPMethod:      r.Method,
			ProtocolVersion: r.Header.Get("MCP-Protocol-Version"),
			SessionID:       r.Header.Get("Mcp-Session-Id"),
		}
		if r.Body != nil {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, "reading body: "+err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(body, &msg) == nil {
				rec.RPCMethod = msg.Method
			}
		}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		rp.ServeHTTP(sw, r)
		rec.Status = sw.status
		p.mu.Lock()
		p.requests = append(p.requests, rec)
		p.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// Take returns the requests recorded so far and forgets them.
func (p *recordingProxy) Take() []recordedRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.requests
	p.requests = nil
	return out
}

// describe renders requests one per line, for failure messages.
func describe(reqs []recordedRequest) string {
	var b strings.Builder
	for _, r := range reqs {
		b.WriteString("    " + r.String() + "\n")
	}
	return b.String()
}

// statusWriter remembers the status code and passes flushes through.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
