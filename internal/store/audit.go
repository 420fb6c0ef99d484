package store

import (
	"context"
	"time"
)

// Entry is one audit record: who called what, how long it took and how it
// ended.
type Entry struct {
	// ID is set by the store and increases with every record.
	ID int64
	// Time is when the call started; Record sets it to now when zero.
	Time time.Time
	// Server and Tool name what was called.
	Server string
	Tool   string
	// Principal is the caller's user id (a key's user, a JWT's subject); empty for an
	// anonymous caller.
	Principal string
	// Via says how the principal was established: "key:ID" (an API key), "jwt",
	// "admin-key" or "env" (stdio); empty for an anonymous caller. It never holds a secret.
	Via string
	// Client is the caller's network address (the IP of the HTTP connection); empty for
	// stdio and internal calls.
	Client string
	// Outcome is a short word such as "ok", "tool_error", "denied", "error".
	Outcome string
	// Duration is how long the call took.
	Duration time.Duration
	// Error is a short error text, empty on success.
	Error string
	// Arguments are the call's arguments as JSON, recorded only for servers that ask for
	// them (audit: {arguments: true}); empty otherwise.
	Arguments string
}

// AuditFilter selects audit entries.
type AuditFilter struct {
	// Limit caps the number of entries: 0 means DefaultAuditLimit, and it is
	// never more than MaxAuditLimit.
	Limit int
	// Server, when set, keeps only entries of that server.
	Server string
	// Principal, when set, keeps only entries of that principal.
	Principal string
	// AfterID, when not zero, keeps only entries recorded after the one with that ID
	// (ID > AfterID): what a follower has not seen yet.
	AfterID int64
	// OldestFirst lists the oldest matching entries, oldest first, instead of the newest:
	// with AfterID, a follower pages through what it has not seen without skipping any.
	OldestFirst bool
}

// Audit limits.
const (
	DefaultAuditLimit = 100
	MaxAuditLimit     = 10000
)

// Audit records and lists calls.
type Audit interface {
	// Record appends the entries, in one transaction: all are stored or none.
	Record(ctx context.Context, es ...Entry) error
	// List returns the newest entries matching f, newest first (or, with f.OldestFirst,
	// the oldest, oldest first).
	List(ctx context.Context, f AuditFilter) ([]Entry, error)
	// Prune deletes the entries older than before and returns how many.
	Prune(ctx context.Context, before time.Time) (int, error)
}

// AuditLimit returns the effective limit of f.
func (f AuditFilter) AuditLimit() int {
	switch {
	case f.Limit <= 0:
		return DefaultAuditLimit
	case f.Limit > MaxAuditLimit:
		return MaxAuditLimit
	}
	return f.Limit
}
