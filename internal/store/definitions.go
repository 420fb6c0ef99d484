package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// Definition is one stored server definition. The document is opaque to the
// store: it is kept byte for byte as given (it must be valid JSON).
type Definition struct {
	// Slug names the server; it matches SlugPattern.
	Slug string
	// Doc is the definition document, returned exactly as it was stored.
	Doc json.RawMessage
	// Revision increases with every write to any definition of the store, so
	// a later write always has a higher revision than an earlier one (also
	// across Delete and re-Create of the same slug).
	Revision int64
	// CreatedAt is when the slug was first created (reset by Delete).
	CreatedAt time.Time
	// UpdatedAt is the time of the last Put or Create.
	UpdatedAt time.Time
}

// ChangeKind says what happened to a definition.
type ChangeKind string

// The kinds of change a Watch reports.
const (
	// ChangePut: the definition named by Slug was created or replaced.
	ChangePut ChangeKind = "put"
	// ChangeDelete: the definition named by Slug was deleted.
	ChangeDelete ChangeKind = "delete"
	// ChangeResync: changes may have been missed (a lost database connection,
	// a slow consumer, or a periodic safety check); reload every definition.
	// Slug is empty.
	ChangeResync ChangeKind = "resync"
)

// Change is one event from Definitions.Watch.
type Change struct {
	Kind ChangeKind
	Slug string
}

// Definitions stores server definitions by slug.
type Definitions interface {
	// Get returns the definition of slug, or an error wrapping ErrNotFound.
	Get(ctx context.Context, slug string) (Definition, error)
	// List returns every definition, ordered by slug.
	List(ctx context.Context) ([]Definition, error)
	// Put creates or replaces the definition of slug and returns what was
	// stored. A malformed slug or document gives ErrInvalid; an oversized
	// document ErrTooLarge.
	Put(ctx context.Context, slug string, doc json.RawMessage) (Definition, error)
	// Create is Put that fails with ErrExists when slug is already defined.
	Create(ctx context.Context, slug string, doc json.RawMessage) (Definition, error)
	// Delete removes the definition of slug, or returns ErrNotFound.
	Delete(ctx context.Context, slug string) error
	// Watch reports changes made through any Store sharing the database (see
	// the implementation for its reach) until ctx is done or the Store is
	// closed; then the channel is closed. Changes made after Watch returns
	// are delivered. Nothing is lost silently: when changes may have been
	// missed, a ChangeResync is sent instead.
	Watch(ctx context.Context) <-chan Change
}

// SlugPattern is the form of a definition slug, compiled on first use (SlugPattern.Get()).
var SlugPattern = lazy.Regexp{Expr: `^[a-z0-9][a-z0-9_-]{0,62}$`}

// CheckSlug returns an error wrapping ErrInvalid when slug is malformed.
func CheckSlug(slug string) error {
	if !SlugPattern.Get().MatchString(slug) {
		return fmt.Errorf("slug %q must be 1-63 characters of a-z, 0-9, '_' or '-', starting with a letter or digit: %w", truncate(slug, 80), ErrInvalid)
	}
	return nil
}

// CheckDocument returns an error wrapping ErrInvalid when doc is not one
// valid JSON value, or ErrTooLarge when it is longer than limit bytes (limit
// <= 0 means no limit).
func CheckDocument(what string, doc []byte, limit int) error {
	if limit > 0 && len(doc) > limit {
		return fmt.Errorf("%s is %d bytes; the limit is %d bytes: %w", what, len(doc), limit, ErrTooLarge)
	}
	if len(doc) == 0 {
		return fmt.Errorf("%s is empty; it must be a JSON document: %w", what, ErrInvalid)
	}
	if !json.Valid(doc) {
		return fmt.Errorf("%s is not valid JSON: %w", what, ErrInvalid)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
