package store

import (
	"errors"
	"sync"
)

// Store bundles the stores of every concern, all backed by one database.
// Build it with New; release it with Close.
type Store struct {
	// Kind names the implementation: "sqlite" or "postgres".
	Kind string

	Definitions  Definitions
	Blobs        Blobs
	Keys         Keys
	WorkSessions WorkSessions
	Audit        Audit

	closeOnce sync.Once
	closeErr  error
	close     func() error
}

// New bundles the parts of one implementation into a Store. close releases
// the underlying database; it is called once, by the first Close.
func New(kind string, d Definitions, b Blobs, k Keys, w WorkSessions, a Audit, close func() error) *Store {
	return &Store{Kind: kind, Definitions: d, Blobs: b, Keys: k, WorkSessions: w, Audit: a, close: close}
}

// Close stops watchers (their channels are closed) and releases the database.
// It is safe to call more than once; later calls return the first result.
func (s *Store) Close() error {
	if s == nil {
		return errors.New("closing store: nil *Store")
	}
	s.closeOnce.Do(func() {
		if s.close != nil {
			s.closeErr = s.close()
		}
	})
	return s.closeErr
}
