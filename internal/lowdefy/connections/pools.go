package connections

import (
	"io"
	"sync"
)

// Pools keeps open handles (database pools, clients) between requests, keyed by what
// opened them (a driver and its connection string), so a request does not pay for a new
// connection each time. Close closes them all.
type Pools struct {
	mu    sync.Mutex
	items map[string]io.Closer
}

// Get returns the handle stored under key, opening and storing it with open if there is
// none.
func (p *Pools) Get(key string, open func() (io.Closer, error)) (io.Closer, error) {
	if p == nil {
		return open()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.items[key]; ok {
		return c, nil
	}
	c, err := open()
	if err != nil {
		return nil, err
	}
	if p.items == nil {
		p.items = map[string]io.Closer{}
	}
	p.items[key] = c
	return c, nil
}

// Close closes every handle.
func (p *Pools) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var first error
	for k, c := range p.items {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
		delete(p.items, k)
	}
	return first
}
