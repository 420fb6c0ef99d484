package gateway

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// subscribePoll is how often subscribed file resources are looked at for changes.
const subscribePoll = time.Second

// fileStamp is what tells that a file changed.
type fileStamp struct {
	size int64
	mod  time.Time
	ok   bool
}

func stampOf(path string) fileStamp {
	st, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{size: st.Size(), mod: st.ModTime(), ok: true}
}

// watches are the configured file resources a client subscribed to (resources/subscribe, or
// subscriptions/listen on the 2026-07-28 wire), by entry and URI, with the file's last
// stamp. One poller per gateway looks at them every subscribePoll and sends
// notifications/resources/updated when a file changes; the SDK sends them to the sessions
// that subscribed.
type watches struct {
	mu    sync.Mutex
	files map[*Entry]map[string]fileStamp
	start sync.Once
	stop  context.CancelFunc

	// subs counts the client subscriptions passed on to a backend (backend.Subscriber), by
	// server name and URI: the backend hears the first subscription and the last
	// unsubscription, and a new backend of the server (a reload) is subscribed again.
	// A session that ends without unsubscribing keeps its count; the SDK sends updates only
	// to sessions that are subscribed, so that costs only the upstream's notifications.
	subs map[string]map[string]int
}

// subscriber returns the backend of st as a backend.Subscriber when it serves uri (one of
// its resources, or any URI when it has resource templates), else nil.
func subscriber(st *entryState, uri string) backend.Subscriber {
	sb, ok := st.backend.(backend.Subscriber)
	if !ok {
		return nil
	}
	switch r := st.readers[uri]; {
	case r == nil:
		for _, t := range st.templates {
			if _, conf := t.(configured); !conf {
				return sb
			}
		}
		return nil
	default:
		if _, conf := r.(configured); conf {
			return nil
		}
		return sb
	}
}

// subscribe is the SDK's SubscribeHandler of entry e: it accepts a URI the entry serves and
// starts watching it when it is a configured file.
func (g *Gateway) subscribe(e *Entry) func(context.Context, *mcp.SubscribeRequest) error {
	return func(ctx context.Context, req *mcp.SubscribeRequest) error {
		uri := req.Params.URI
		st := e.state.Load()
		if st.readers[uri] != nil && !mayRead(auth.FromContext(ctx), st, uri, false) {
			return mcp.ResourceNotFoundError(uri) // as resources/read answers it
		}
		if sb := subscriber(st, uri); sb != nil {
			return g.watch.subscribeBackend(ctx, e.Name, sb, uri)
		}
		if st.readers[uri] == nil {
			return mcp.ResourceNotFoundError(uri)
		}
		path := g.resourceFile(st.cfg, uri)
		if path == "" {
			return nil // content that does not change (text, blob, cid) or read live
		}
		w := &g.watch
		w.mu.Lock()
		if w.files == nil {
			w.files = map[*Entry]map[string]fileStamp{}
		}
		if w.files[e] == nil {
			w.files[e] = map[string]fileStamp{}
		}
		if _, ok := w.files[e][uri]; !ok {
			w.files[e][uri] = stampOf(path)
		}
		w.mu.Unlock()
		w.start.Do(func() {
			ctx, cancel := context.WithCancel(context.Background())
			w.mu.Lock()
			w.stop = cancel
			w.mu.Unlock()
			go g.pollFiles(ctx)
		})
		return nil
	}
}

// resourceFile returns the path of the configured file behind uri, or "".
func (g *Gateway) resourceFile(s *config.Server, uri string) string {
	for _, r := range s.Resources {
		if r.URI == uri && r.File != "" {
			return filepath.Join(g.cfg.Dir, r.File)
		}
	}
	return ""
}

func (g *Gateway) pollFiles(ctx context.Context) {
	t := time.NewTicker(subscribePoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		type change struct {
			e   *Entry
			uri string
		}
		var changed []change
		w := &g.watch
		w.mu.Lock()
		for e, files := range w.files {
			if g.reg.get(e.Name) != e {
				delete(w.files, e) // the server is gone
				continue
			}
			st := e.state.Load()
			for uri, old := range files {
				path := g.resourceFile(st.cfg, uri)
				if path == "" {
					delete(files, uri)
					continue
				}
				if cur := stampOf(path); cur != old {
					files[uri] = cur
					changed = append(changed, change{e, uri})
				}
			}
		}
		w.mu.Unlock()
		for _, c := range changed {
			_ = c.e.Server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: c.uri})
		}
	}
}

// stopWatching ends the poller.
func (w *watches) stopWatching() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop != nil {
		w.stop()
	}
}

// unsubscribe is the SDK's UnsubscribeHandler of entry e: the last unsubscription from a
// URI a backend serves is passed on to it.
func (g *Gateway) unsubscribe(e *Entry) func(context.Context, *mcp.UnsubscribeRequest) error {
	return func(ctx context.Context, req *mcp.UnsubscribeRequest) error {
		uri := req.Params.URI
		sb := subscriber(e.state.Load(), uri)
		w := &g.watch
		w.mu.Lock()
		n := w.subs[e.Name][uri]
		last := n == 1
		if n > 0 {
			w.subs[e.Name][uri] = n - 1
		}
		if last {
			delete(w.subs[e.Name], uri)
		}
		w.mu.Unlock()
		if last && sb != nil {
			return sb.UnsubscribeResource(ctx, uri)
		}
		return nil
	}
}

// subscribeBackend counts a client subscription to uri of server and passes the first one
// on to the backend; a refused subscription is not counted.
func (w *watches) subscribeBackend(ctx context.Context, server string, sb backend.Subscriber, uri string) error {
	w.mu.Lock()
	first := w.subs[server][uri] == 0
	w.mu.Unlock()
	if first {
		if err := sb.SubscribeResource(ctx, uri); err != nil {
			return err
		}
	}
	w.mu.Lock()
	if w.subs == nil {
		w.subs = map[string]map[string]int{}
	}
	if w.subs[server] == nil {
		w.subs[server] = map[string]int{}
	}
	w.subs[server][uri]++
	w.mu.Unlock()
	return nil
}

// watchResources follows the resource updates of a backend that offers subscriptions
// (backend.Subscriber) until it is retired, telling the subscribed clients; a backend that
// replaces another is first subscribed to what clients are subscribed to.
func (g *Gateway) watchResources(e *Entry, st *entryState) {
	sb, ok := st.backend.(backend.Subscriber)
	if !ok {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	st.live.setStop(cancel)
	w := &g.watch
	w.mu.Lock()
	var again []string
	for uri, n := range w.subs[e.Name] {
		if n > 0 {
			again = append(again, uri)
		}
	}
	w.mu.Unlock()
	go func() {
		for _, uri := range again {
			if err := sb.SubscribeResource(ctx, uri); err != nil {
				g.log.Warn("subscribing a new backend to a resource clients subscribed to failed", "server", e.Name, "uri", uri, "error", err)
			}
		}
		ch := sb.ResourceUpdates()
		for {
			select {
			case <-ctx.Done():
				return
			case uri, open := <-ch:
				if !open {
					return
				}
				_ = e.Server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
			}
		}
	}()
}
