package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	_ "github.com/mcpbridge/mcpbridge/internal/backend/httpapi"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// seen is what the upstream received.
type seen struct {
	Method  string
	RawPath string // escaped path as sent
	Query   string // raw query
	Header  http.Header
	Body    string
}

// upstream is a real REST server on loopback that records requests and answers per path.
type upstream struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []seen
}

var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

func newUpstream(t testing.TB) *upstream {
	u := &upstream{}
	mux := http.NewServeMux()
	echo := func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"method": r.Method, "path": r.URL.EscapedPath(), "query": r.URL.RawQuery,
			"headers": r.Header, "body": string(body),
		})
	}
	mux.HandleFunc("/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%q,"name":"Ada","verbose":%q,"n":12345678901234567890}`, r.PathValue("id"), r.URL.Query().Get("verbose"))
	})
	mux.HandleFunc("/echo/", echo)
	mux.HandleFunc("/echo", echo)
	mux.HandleFunc("/notes", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		fmt.Fprintf(w, `{"note":%s,"status":"created"}`, body)
	})
	mux.HandleFunc("/array", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `[1,"two",{"three":3}]`)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "plain text ✓")
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pngBytes)
	})
	mux.HandleFunc("/audio", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "audio/wav")
		w.Write([]byte("RIFF\x24\x00\x00\x00WAVEfmt "))
	})
	mux.HandleFunc("/flac", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream") // untyped: sniffed
		w.Write([]byte("fLaC\x00\x00\x00\x22\x10\x00\x10\x00"))
	})
	mux.HandleFunc("/binary", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.4\x00\xff\xfe binary"))
	})
	mux.HandleFunc("/notutf8", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte{0xff, 0xfe, 0xfd, 'a'})
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, strings.Repeat("0123456789", 500))
	})
	mux.HandleFunc("/bigjson", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":"`+strings.Repeat("x", 5000)+`"}`)
	})
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		var code int
		if _, err := fmt.Sscanf(r.PathValue("code"), "%d", &code); err != nil || code < 100 || code > 999 {
			code = http.StatusNotFound
		}
		w.Header().Set("Content-Type", "application/json")
		if code == 429 {
			w.Header().Set("Retry-After", "7")
		}
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":"status %d","key":%q,"pad":%q}`, code, r.Header.Get("X-Api-Key"), strings.Repeat("p", 3000))
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		u.mu.Lock()
		u.reqs = append(u.reqs, seen{Method: r.Method, RawPath: r.URL.EscapedPath(), Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)})
		if len(u.reqs) > 100 {
			u.reqs = u.reqs[len(u.reqs)-10:]
		}
		u.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

// last returns the last request the upstream received.
func (u *upstream) last(t *testing.T) seen {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.reqs) == 0 {
		t.Fatal("the upstream received no request")
	}
	return u.reqs[len(u.reqs)-1]
}

func (u *upstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.reqs)
}

// openServer parses a one-server config (YAML of the server's fields) and opens its backend.
func openServer(t testing.TB, serverYAML string) (backend.Backend, error) {
	t.Helper()
	b, cfgErr, err := parseAndOpen(t, serverYAML)
	if cfgErr != nil {
		t.Fatalf("config:\n%s\n%v", serverYAML, cfgErr)
	}
	return b, err
}

// parseAndOpen reports a configuration error and an Open error separately.
func parseAndOpen(t testing.TB, serverYAML string) (b backend.Backend, cfgErr, openErr error) {
	t.Helper()
	doc := "servers:\n  api:\n" + indent(serverYAML, "    ")
	cfg, err := config.Parse("test.yaml", t.TempDir(), []byte(doc), backend.Kinds())
	if err != nil {
		return nil, err, nil
	}
	b, err = backend.Open(context.Background(), cfg.Servers["api"], backend.Deps{Dir: cfg.Dir})
	return b, nil, err
}

func mustOpen(t testing.TB, serverYAML string) backend.Backend {
	t.Helper()
	b, err := openServer(t, serverYAML)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return b
}

func indent(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pre + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

func callTool(t testing.TB, b backend.Backend, name string, args any) *mcp.CallToolResult {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.CallTool(context.Background(), &backend.Call{Name: name, Arguments: raw, Session: backend.NoSession{}})
	if err != nil {
		t.Fatalf("CallTool %s: gateway error %v", name, err)
	}
	return res
}

// resultText joins the text contents of a result.
func resultText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// resultJSON is the whole result as the client would receive it.
func resultJSON(t testing.TB, r *mcp.CallToolResult) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
