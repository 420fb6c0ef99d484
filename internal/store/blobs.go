package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Blobs stores immutable content addressed by its SHA-256 hash.
type Blobs interface {
	// Put stores data and returns its id, "sha256-" followed by 64 lowercase
	// hex digits. Storing the same content again returns the same id and is
	// not an error. Data over the store's limit gives ErrTooLarge.
	Put(ctx context.Context, data []byte) (string, error)
	// Get returns the content of id; an unknown id gives ErrNotFound, a
	// malformed one ErrInvalid.
	Get(ctx context.Context, id string) ([]byte, error)
}

// BlobPrefix starts every blob id.
const BlobPrefix = "sha256-"

// DefaultMaxBlobBytes is the blob size limit when none is configured (16 MiB).
const DefaultMaxBlobBytes = 16 << 20

// DefaultMaxDocumentBytes is the size limit of definition documents and work
// session data when none is configured (16 MiB).
const DefaultMaxDocumentBytes = 16 << 20

// BlobID returns the id of data: "sha256-<lowercase hex>".
func BlobID(data []byte) string {
	sum := sha256.Sum256(data)
	return BlobPrefix + hex.EncodeToString(sum[:])
}

// CheckBlobID returns an error wrapping ErrInvalid when id is not of the form
// BlobID returns.
func CheckBlobID(id string) error {
	hexPart, ok := strings.CutPrefix(id, BlobPrefix)
	if !ok || len(hexPart) != 2*sha256.Size || strings.ToLower(hexPart) != hexPart {
		return fmt.Errorf("blob id %q must be %q followed by 64 lowercase hex digits: %w", truncate(id, 80), BlobPrefix, ErrInvalid)
	}
	if _, err := hex.DecodeString(hexPart); err != nil {
		return fmt.Errorf("blob id %q must be %q followed by 64 lowercase hex digits: %w", truncate(id, 80), BlobPrefix, ErrInvalid)
	}
	return nil
}

// CheckBlobSize returns an error wrapping ErrTooLarge when n exceeds limit
// (limit <= 0 means no limit).
func CheckBlobSize(n, limit int) error {
	if limit > 0 && n > limit {
		return fmt.Errorf("blob is %d bytes; the limit is %d bytes: %w", n, limit, ErrTooLarge)
	}
	return nil
}
