package gateway

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
}

// subscribe is the SDK's SubscribeHandler of entry e: it accepts a URI the entry serves and
// starts watching it when it is a configured file.
func (g *Gateway) subscribe(e *Entry) func(context.Context, *mcp.SubscribeRequest) error {
	return func(ctx context.Context, req *mcp.SubscribeRequest) error {
		uri := req.Params.URI
		st := e.state.Load()
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
