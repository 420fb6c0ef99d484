package lowdefy

import (
	"container/list"
	"encoding/json"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

// DefaultCachedSessions is how many restored work sessions a backend keeps in memory.
const DefaultCachedSessions = 256

// sessionCache keeps the engines of recently served work sessions, each with the stored
// version it matches, so that a call on a session this process served last skips decoding
// and restoring it. The store stays the truth: a call uses an entry only when the version it
// loads equals the entry's (another replica's save changes the version), and an entry is
// dropped whenever a call may have changed its engine without saving. The least recently
// used entries are dropped beyond max. It is safe for concurrent use; an entry is used by
// one call at a time because calls on one session hold the session's lock.
type sessionCache struct {
	max int

	mu    sync.Mutex
	order *list.List // of *cachedSession, most recently used first
	byID  map[string]*list.Element
}

// cachedSession is a restored work session: its data as of version and its live engine.
type cachedSession struct {
	id      string
	version int64
	// who is the principal the engine was made for (its _user): see principalKey.
	who  string
	data sessionData // Engine left nil: the live engine is e
	e    *engine.Engine
}

func newSessionCache(max int) *sessionCache {
	return &sessionCache{max: max, order: list.New(), byID: map[string]*list.Element{}}
}

// get returns the entry of id when it matches version and principal key who, else nil.
func (c *sessionCache) get(id string, version int64, who string) *cachedSession {
	if c == nil || c.max <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.byID[id]
	if el == nil {
		return nil
	}
	cs := el.Value.(*cachedSession)
	if cs.version != version || cs.who != who {
		c.order.Remove(el)
		delete(c.byID, id)
		return nil
	}
	c.order.MoveToFront(el)
	return cs
}

// put stores cs, replacing the entry of its id, and drops the least recently used entries
// beyond the bound.
func (c *sessionCache) put(cs *cachedSession) {
	if c == nil || c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.byID[cs.id]; el != nil {
		el.Value = cs
		c.order.MoveToFront(el)
		return
	}
	c.byID[cs.id] = c.order.PushFront(cs)
	for c.order.Len() > c.max {
		el := c.order.Back()
		c.order.Remove(el)
		delete(c.byID, el.Value.(*cachedSession).id)
	}
}

// drop forgets the entry of id, if any.
func (c *sessionCache) drop(id string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.byID[id]; el != nil {
		c.order.Remove(el)
		delete(c.byID, id)
	}
}

// len returns the number of entries.
func (c *sessionCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// principalKey identifies what of a principal an engine is made from (Backend.user): a call
// by the same user with other roles, name, email or token claims gets a freshly restored
// engine.
func principalKey(p auth.Principal) string {
	key := strings.Join(append([]string{p.User, p.Name, p.Email}, p.Roles...), "\x00")
	if p.Claims != nil {
		c, _ := json.Marshal(p.Claims) // keys sorted
		key += "\x00\x00" + string(c)
	}
	return key
}
