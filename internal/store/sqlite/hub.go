package sqlite

import (
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/internal/changes"
)

// Stores opened on the same file in one process are peers: a change made
// through one is published to the watchers of all. Each Store keeps its own
// hub so that closing it ends only its own watchers.
var (
	peersMu sync.Mutex
	peers   = map[string]map[*changes.Hub]struct{}{}
)

// joinPeers registers a new hub for the database file key. publish sends a
// change to every peer's hub; leave unregisters and closes the hub.
func joinPeers(key string) (hub *changes.Hub, publish func(store.Change), leave func()) {
	hub = &changes.Hub{}
	peersMu.Lock()
	if peers[key] == nil {
		peers[key] = map[*changes.Hub]struct{}{}
	}
	peers[key][hub] = struct{}{}
	peersMu.Unlock()

	publish = func(c store.Change) {
		peersMu.Lock()
		defer peersMu.Unlock()
		for h := range peers[key] {
			h.Publish(c)
		}
	}
	var once sync.Once
	leave = func() {
		once.Do(func() {
			peersMu.Lock()
			delete(peers[key], hub)
			if len(peers[key]) == 0 {
				delete(peers, key)
			}
			peersMu.Unlock()
			hub.Close()
		})
	}
	return hub, publish, leave
}
