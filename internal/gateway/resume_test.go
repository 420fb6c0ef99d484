package gateway_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// A legacy client whose GET stream breaks reconnects with Last-Event-ID and receives the
// notification sent while it was away.
func TestLegacyGETStreamResumes(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, base := startGateway(t, st)
	api := base + "/admin/api/servers"
	if code, m := admin(t, "PUT", api+"/notes", adminKey, echoDef); code != 201 && code != 200 {
		t.Fatalf("create: %d %v", code, m)
	}
	rename := func(tool string) { // changes the server's tools: a tools/list_changed for every session
		t.Helper()
		if code, m := admin(t, "PUT", api+"/notes", adminKey, strings.Replace(echoDef, `"shout"`, `"`+tool+`"`, 1)); code != 200 {
			t.Fatalf("put: %d %v", code, m)
		}
	}

	gets := &getRecorder{next: http.DefaultTransport, release: make(chan struct{}), seen: make(chan int, 4)}
	changed := make(chan struct{}, 4)
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp/notes", HTTPClient: &http.Client{Transport: gets}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	wait := func(what string, ch <-chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Fatalf("timed out waiting for %s", what)
		}
	}
	waitGET := func(n int) {
		t.Helper()
		select {
		case got := <-gets.seen:
			if got != n {
				t.Fatalf("GET #%d, want #%d", got, n)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("timed out waiting for GET #%d", n)
		}
	}

	waitGET(1)
	rename("yell")
	wait("the first tools/list_changed", changed)

	gets.dropFirst() // the network drops the GET stream; the client reconnects after a delay
	waitGET(2)       // held until release: the next notification is sent while no stream is open
	rename("holler")
	// The SDK sends list_changed 10ms after a change: the nap lets it go out while no
	// stream is open. Should a loaded machine send it only after the release, it goes on
	// the new stream and the wait below still sees it: a false pass, never a false failure.
	time.Sleep(300 * time.Millisecond)
	close(gets.release)
	wait("the tools/list_changed sent while the stream was down", changed)

	if id := gets.lastEventID(); id == "" {
		t.Error("the client reconnected without Last-Event-ID: the GET stream's events have no ids")
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "holler" {
		t.Errorf("after resuming: %v %v", tools, err)
	}
}

// getRecorder is an http.RoundTripper that lets a test drop the client's first GET stream and
// hold its reconnection until release is closed. It reports the number of each GET on seen.
type getRecorder struct {
	next    http.RoundTripper
	release chan struct{}
	seen    chan int

	mu     sync.Mutex
	n      int
	drop   context.CancelFunc
	lastID string
}

func (g *getRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet {
		return g.next.RoundTrip(req)
	}
	g.mu.Lock()
	g.n++
	n := g.n
	if n == 1 {
		ctx, cancel := context.WithCancel(req.Context())
		req = req.WithContext(ctx)
		g.drop = cancel
	} else {
		g.lastID = req.Header.Get("Last-Event-ID")
	}
	g.mu.Unlock()
	g.seen <- n
	if n > 1 {
		select {
		case <-g.release:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
	return g.next.RoundTrip(req)
}

func (g *getRecorder) dropFirst() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.drop()
}

func (g *getRecorder) lastEventID() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lastID
}
