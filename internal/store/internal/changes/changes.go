// Package changes fans definition changes out to Watch subscribers without
// ever blocking the publisher and without losing changes silently: a
// subscriber that falls too far behind gets a single ChangeResync in place of
// its backlog.
package changes

import (
	"context"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// MaxBacklog is how many undelivered changes a subscriber may accumulate
// before they are replaced by one ChangeResync.
const MaxBacklog = 1024

// Hub delivers published changes to every current subscriber. The zero value
// is ready to use.
type Hub struct {
	mu     sync.Mutex
	subs   map[*sub]struct{}
	closed bool
}

type sub struct {
	hub     *Hub
	mu      sync.Mutex
	pending []store.Change
	signal  chan struct{} // capacity 1: "pending has something"
	done    chan struct{} // closed by stop
	once    sync.Once
	out     chan store.Change
}

// Subscribe returns a channel that receives every change published after
// Subscribe returns, until ctx is done or the hub is closed; then it is
// closed.
func (h *Hub) Subscribe(ctx context.Context) <-chan store.Change {
	s := &sub{
		hub:    h,
		signal: make(chan struct{}, 1),
		done:   make(chan struct{}),
		out:    make(chan store.Change),
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		close(s.out)
		return s.out
	}
	if h.subs == nil {
		h.subs = make(map[*sub]struct{})
	}
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	stopAfter := context.AfterFunc(ctx, s.stop)
	go func() {
		defer stopAfter()
		s.run()
	}()
	return s.out
}

// Publish queues c for every subscriber. It never blocks on a subscriber.
func (h *Hub) Publish(c store.Change) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		s.push(c)
	}
}

// Subscribers returns the number of current subscribers.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Close ends every subscription and refuses new ones (their channels are
// returned closed).
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	subs := h.subs
	h.subs = nil
	h.mu.Unlock()
	for s := range subs {
		s.stop()
	}
}

func (s *sub) push(c store.Change) {
	s.mu.Lock()
	if len(s.pending) >= MaxBacklog {
		s.pending = append(s.pending[:0], store.Change{Kind: store.ChangeResync})
	}
	s.pending = append(s.pending, c)
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

func (s *sub) stop() {
	s.once.Do(func() {
		close(s.done)
		s.hub.mu.Lock()
		delete(s.hub.subs, s)
		s.hub.mu.Unlock()
	})
}

func (s *sub) run() {
	defer close(s.out)
	for {
		// Take one change at a time so that everything undelivered stays in
		// pending, where push can see the backlog.
		s.mu.Lock()
		var c store.Change
		have := len(s.pending) > 0
		if have {
			c = s.pending[0]
			s.pending = s.pending[1:]
			if len(s.pending) == 0 {
				s.pending = nil
			}
		}
		s.mu.Unlock()
		if have {
			select {
			case s.out <- c:
			case <-s.done:
				return
			}
			continue
		}
		select {
		case <-s.signal:
		case <-s.done:
			return
		}
	}
}
