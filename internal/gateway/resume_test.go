package gateway_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
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

// A legacy GET stream opened without Last-Event-ID carries only the events from then on:
// the session's earlier GET-stream events are replayed only to a client that asks for them
// with Last-Event-ID, and the new stream's event ids continue after every stored one, those
// sent while no stream was open included.
func TestLegacyNewGETStreamDoesNotReplay(t *testing.T) {
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
	n := 0
	rename := func() { // a tools/list_changed for every session
		t.Helper()
		n++
		def := strings.Replace(echoDef, `"shout"`, `"tool`+strconv.Itoa(n)+`"`, 1)
		if code, m := admin(t, "PUT", api+"/notes", adminKey, def); code != 200 {
			t.Fatalf("put: %d %v", code, m)
		}
	}
	url := base + "/mcp/notes"
	hdr := legacySession(t, http.DefaultClient, url, "2025-11-25")

	a := openGET(t, url, hdr, "")
	rename()
	e1 := a.next(t)
	a.close()

	b := openGET(t, url, hdr, "")
	rename()
	e2 := b.next(t)
	b.close()
	if e2.id == e1.id {
		t.Fatalf("a new GET stream replayed the earlier event %s", e1.id)
	}

	rename() // sent while no stream is open: stored for a client that resumes
	c := openGET(t, url, hdr, e1.id)
	if got := c.next(t); got.id != e2.id || got.data != e2.data {
		t.Fatalf("resuming after %s: got %+v, want %+v", e1.id, got, e2)
	}
	e3 := c.next(t)
	c.close()
	if e3.id == e1.id || e3.id == e2.id {
		t.Fatalf("resumed event reuses id %s", e3.id)
	}

	d := openGET(t, url, hdr, "")
	rename()
	e4 := d.next(t)
	d.close()
	if e4.id == e1.id || e4.id == e2.id || e4.id == e3.id {
		t.Fatalf("the new GET stream's event %+v is an old one or reuses its id (earlier: %s %s %s)", e4, e1.id, e2.id, e3.id)
	}
	if !strings.Contains(e4.data, "notifications/tools/list_changed") {
		t.Fatalf("event: %+v", e4)
	}
}

type sseEvent struct{ id, data string }

// sseStream is a raw GET stream of a legacy session whose events are read into events.
type sseStream struct {
	cancel context.CancelFunc
	events chan sseEvent
}

// openGET opens the session's GET stream, with Last-Event-ID when lastID is set. It retries
// while the server still holds the previous stream (409) until a generous deadline.
func openGET(t *testing.T, url string, hdr map[string]string, lastID string) *sseStream {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		req.Header.Set("Accept", "text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			t.Fatalf("GET: %v", err)
		}
		if resp.StatusCode == http.StatusConflict && time.Now().Before(deadline) {
			resp.Body.Close()
			cancel()
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if resp.StatusCode != 200 {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			cancel()
			t.Fatalf("GET (Last-Event-ID %q): %d %s", lastID, resp.StatusCode, b)
		}
		s := &sseStream{cancel: cancel, events: make(chan sseEvent, 16)}
		t.Cleanup(cancel) // a failed test must not leave the stream holding the gateway open
		go func() {
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			var ev sseEvent
			for sc.Scan() {
				line := sc.Text()
				switch {
				case line == "":
					if ev.data != "" {
						s.events <- ev
					}
					ev = sseEvent{}
				case strings.HasPrefix(line, "id: "):
					ev.id = strings.TrimPrefix(line, "id: ")
				case strings.HasPrefix(line, "data: "):
					ev.data = strings.TrimPrefix(line, "data: ")
				}
			}
		}()
		return s
	}
}

func (s *sseStream) next(t *testing.T) sseEvent {
	t.Helper()
	select {
	case ev := <-s.events:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for an event on the GET stream")
		return sseEvent{}
	}
}

func (s *sseStream) close() { s.cancel() }
