package gateway

import (
	"context"
	"io"
	"sync"
)

// live is one opened backend's lifetime: the calls it is serving, and what runs beside it
// (the catalog watcher). States that share a backend (a catalog refresh) share its live.
//
// When a definition is replaced or removed, the old live is retired: it takes no new calls,
// and the backend is closed once the calls in flight have finished.
type live struct {
	mu      sync.Mutex
	calls   int
	retired bool
	idle    chan struct{} // closed when retired and no call is in flight
	stop    context.CancelFunc
}

func newLive() *live {
	return &live{idle: make(chan struct{}), stop: func() {}}
}

// enter counts a call in; it fails when the backend was retired meanwhile (the caller then
// reloads the entry's state).
func (l *live) enter() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.retired {
		return false
	}
	l.calls++
	return true
}

// exit counts a call out.
func (l *live) exit() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls--
	if l.retired && l.calls == 0 {
		close(l.idle)
	}
}

// setStop adds to what retiring stops beside the calls (the catalog and resource watchers).
func (l *live) setStop(stop context.CancelFunc) {
	l.mu.Lock()
	if prev := l.stop; prev != nil {
		l.stop = func() { prev(); stop() }
	} else {
		l.stop = stop
	}
	l.mu.Unlock()
}

// stopWatchers stops what watches the backend (the catalog and resource watchers), for a
// gateway that closes its backends without retiring them.
func (l *live) stopWatchers() {
	l.mu.Lock()
	stop := l.stop
	l.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// retire stops new calls and closes closer (when not nil) after the calls in flight end. It
// returns at once; done, when not nil, is called after closing.
func (l *live) retire(closer io.Closer, done func()) {
	l.mu.Lock()
	if l.retired {
		l.mu.Unlock()
		return
	}
	l.retired = true
	if l.calls == 0 {
		close(l.idle)
	}
	stop := l.stop
	l.mu.Unlock()
	stop()
	go func() {
		<-l.idle
		if closer != nil {
			closer.Close()
		}
		if done != nil {
			done()
		}
	}()
}
