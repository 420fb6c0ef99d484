package store

import "errors"

// Errors returned (wrapped, with context) by every implementation. Test them
// with errors.Is.
var (
	// ErrNotFound means the slug, id, key or session does not exist (or is not
	// visible to the caller, for work sessions owned by someone else).
	ErrNotFound = errors.New("not found")
	// ErrExists means Create found a record with the same slug or id.
	ErrExists = errors.New("already exists")
	// ErrConflict means an optimistic-concurrency save used a stale version:
	// reload and retry.
	ErrConflict = errors.New("version conflict")
	// ErrClosed means the work session was closed and can no longer be saved.
	ErrClosed = errors.New("session closed")
	// ErrTooLarge means a blob or document exceeds the configured size limit.
	ErrTooLarge = errors.New("too large")
	// ErrInvalid means an argument is malformed (a bad slug, id or JSON
	// document); the message says what to fix.
	ErrInvalid = errors.New("invalid argument")
	// ErrUnavailable means the store could not be reached or cut the connection (the
	// database is down, restarting or unreachable): nothing is wrong with the request, and
	// the same call may work a moment later.
	ErrUnavailable = errors.New("store unavailable")
)
