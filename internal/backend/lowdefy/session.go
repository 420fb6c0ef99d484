package lowdefy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// MaxAudit is how many audit entries a session keeps in its stored data (the newest). Every
// call loads and saves the session's data, so the trail is kept short: it says what the
// agent did lately, and the gateway's audit log (store.Audit) records every call.
const MaxAudit = 100

// sessionData is what a work session keeps in the store (WorkSession.Data), as JSON:
// {"name", "description", "pageId", "engine", "audit"}.
type sessionData struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// PageID is the page open at the end of the last call ("" before the first navigate).
	PageID string `json:"pageId,omitempty"`
	// Engine is the headless engine's plain data (nil before the first navigate).
	Engine *engine.Snapshot `json:"engine,omitempty"`
	// Audit lists what was done in the session, oldest first (at most MaxAudit entries),
	// each entry an encoded auditEntry: an entry is encoded once, when it is made.
	Audit []json.RawMessage `json:"audit"`
}

// encode returns the session's data as stored. It copies the encoded engine snapshot and
// audit entries as they are, so a save encodes each part once.
func (d *sessionData) encode() ([]byte, error) {
	head, err := json.Marshal(struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		PageID      string `json:"pageId,omitempty"`
	}{d.Name, d.Description, d.PageID})
	if err != nil {
		return nil, fmt.Errorf("encode the session's name: %w", err)
	}
	n := len(head) + 32
	for _, a := range d.Audit {
		n += len(a) + 1
	}
	out := make([]byte, 0, n+16<<10)
	out = append(out, head[:len(head)-1]...)
	if d.Engine != nil {
		out = append(out, `,"engine":`...)
		out = d.Engine.AppendJSON(out)
	}
	out = append(out, `,"audit":[`...)
	for i, a := range d.Audit {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, a...)
	}
	return append(out, "]}"...), nil
}

// auditEntry records one tool call or one interact action of a session.
type auditEntry struct {
	At   time.Time `json:"at"`
	Tool string    `json:"tool"`
	// Action is the action or arguments as the agent sent them (sessionId left out).
	Action json.RawMessage `json:"action,omitempty"`
	// Page is the page open after the step.
	Page  string `json:"page,omitempty"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// encodeAudit encodes an audit entry for sessionData.Audit. An action that is not valid JSON
// (it never is: it comes from the decoded arguments) is kept as a string.
func encodeAudit(a auditEntry) json.RawMessage {
	b, err := json.Marshal(a)
	if err != nil {
		a.Action, _ = json.Marshal(string(a.Action))
		b, _ = json.Marshal(a)
	}
	return b
}

// sessionHeader is the part of sessionData session_list reads.
type sessionHeader struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	PageID      string `json:"pageId,omitempty"`
}

// errTool is a failure the agent can act on: its text becomes an error result.
type errTool struct{ msg string }

func (e *errTool) Error() string { return e.msg }

func toolErr(format string, args ...any) error { return &errTool{fmt.Sprintf(format, args...)} }

// session is a work session loaded for one call: its stored record, its data and an engine
// restored from it (or kept from the previous call, see sessionCache).
type session struct {
	ws   store.WorkSession
	data sessionData
	e    *engine.Engine
}

// audit appends an entry to the session's trail, dropping the oldest beyond MaxAudit.
func (s *session) audit(a auditEntry) {
	s.data.Audit = append(s.data.Audit, encodeAudit(a))
	if n := len(s.data.Audit); n > MaxAudit {
		s.data.Audit = append(make([]json.RawMessage, 0, MaxAudit+8), s.data.Audit[n-MaxAudit:]...)
	}
}

// withSession loads the caller's session id, restores its engine, runs fn, and (when
// write is set) saves the session back with the version it loaded. Calls on one session
// run one after another in this process. A failure the agent can act on is returned as an
// error result.
//
// The engine is taken from the backend's cache instead of being restored when the version
// loaded is the one this process saved (or restored) last; after a call that did not save
// what it may have changed, the cached engine is dropped.
func (b *Backend) withSession(ctx context.Context, c *backend.Call, id string, write bool, fn func(s *session) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	if id == "" {
		return backend.ErrorResult("sessionId is required: session_create starts a session, session_list lists yours"), nil
	}
	unlock := b.lock(id)
	defer unlock()
	ws, err := b.sessions.Load(ctx, id, owner(c.Principal))
	if errors.Is(err, store.ErrNotFound) || (err == nil && ws.App != b.name) {
		if err != nil {
			b.cache.drop(id) // expired or deleted (or not the caller's: dropping is harmless)
		}
		return backend.ErrorResult("work session %q not found: it may have expired, or belong to someone else. session_list lists your sessions; session_create starts one", id), nil
	}
	if err != nil {
		return nil, fmt.Errorf("load work session %s: %w", id, err)
	}
	if ws.Closed {
		b.cache.drop(id)
		return backend.ErrorResult("work session %q is closed; session_create starts a new one", id), nil
	}
	who := principalKey(c.Principal)
	s := &session{ws: ws}
	if cs := b.cache.get(id, ws.Version, who); cs != nil {
		s.data, s.e = cs.data, cs.e
	} else {
		s.e = b.newEngine(c.Principal)
		if err := json.Unmarshal(ws.Data, &s.data); err != nil {
			return nil, fmt.Errorf("work session %s holds data that is not a session: %w", id, err)
		}
		if s.data.Engine != nil {
			if err := s.e.Restore(ctx, s.data.Engine); err != nil {
				b.log.Warn("work session cannot be restored", "session", id, "err", err)
				return backend.ErrorResult("work session %q cannot be restored on the app as it is now (was the app changed?): %v. Close it and start a new one with session_create", id, err), nil
			}
			s.data.Engine = nil // the engine holds it now; save takes a new snapshot
		}
	}
	res, err := fn(s)
	if err != nil || !write {
		// A read leaves the engine as it was restored, so it still matches the stored
		// version; after a failed call it may not.
		if err == nil && s.ws.Version == ws.Version {
			b.cache.put(&cachedSession{id: id, version: ws.Version, who: who, data: s.data, e: s.e})
		} else {
			b.cache.drop(id)
		}
	}
	var te *errTool
	if errors.As(err, &te) {
		return backend.ErrorResult("%s", te.msg), nil
	}
	if err != nil {
		return nil, err
	}
	if !write {
		return res, nil
	}
	if err := b.save(ctx, s); err != nil {
		b.cache.drop(id)
		if errors.Is(err, store.ErrConflict) {
			return backend.ErrorResult("work session %q was changed by another call at the same time, so what this call did to the page was not saved (requests it ran have run). Call get_state to see where the session stands, then continue", id), nil
		}
		if errors.Is(err, store.ErrTooLarge) {
			return backend.ErrorResult("work session %q has grown over the store's size limit, so this call was not saved (requests it ran have run); close it and continue in a new session", id), nil
		}
		if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrClosed) {
			return backend.ErrorResult("work session %q was closed or expired during this call; session_create starts a new one", id), nil
		}
		return nil, fmt.Errorf("save work session %s: %w", id, err)
	}
	b.cache.put(&cachedSession{id: id, version: s.ws.Version, who: who, data: s.data, e: s.e})
	return res, nil
}

// save writes the session's engine and data back to the store, encoding each once. It leaves
// s.data.Engine nil (the engine is the session's state in memory).
func (b *Backend) save(ctx context.Context, s *session) error {
	snap, err := s.e.Save()
	if err != nil {
		return fmt.Errorf("save the engine: %w", err)
	}
	s.data.Engine = snap
	s.data.PageID = snap.CurrentPage
	data, err := s.data.encode()
	s.data.Engine = nil
	if err != nil {
		return fmt.Errorf("encode the session: %w", err)
	}
	s.ws.Data = data
	s.ws.ExpiresAt = b.now().Add(b.limits.SessionExpiry)
	ws, err := b.sessions.Save(ctx, s.ws)
	if err != nil {
		return err
	}
	s.ws = ws
	return nil
}
