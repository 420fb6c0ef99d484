package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// KeyInfo describes an API key. The secret itself is never stored: only its
// SHA-256 hash, which identifies the key at Lookup. A plain (unsalted, fast) hash is
// enough here, unlike for passwords: a secret is 32 random bytes, so the hash cannot be
// reversed by guessing, and a fast hash keeps the per-request lookup cheap.
type KeyInfo struct {
	// ID identifies the key for List and Revoke; it is not secret. Set by Create.
	ID string
	// Name is a label for people ("ci deploy key").
	Name string
	// User is the id of the user the key authenticates as; required.
	User string
	// UserName and UserEmail describe the user (optional; passed to backends, such as
	// Lowdefy apps, that show who is calling).
	UserName  string
	UserEmail string
	// Roles are the principal's roles.
	Roles []string
	// Servers, when not empty, are the only servers the key may be used on.
	Servers []string
	// Admin grants access to the admin API.
	Admin bool
	// Hint is the start of the secret ("mcpb_AbCd"), to recognise a key in
	// a list; it is too short to be used. Set by Create.
	Hint string
	// CreatedAt is set by Create.
	CreatedAt time.Time
	// RevokedAt is set by Revoke; zero while the key is valid.
	RevokedAt time.Time
}

// Keys stores API keys.
type Keys interface {
	// Create makes a new key for info (ID, Hint and times are ignored and set
	// by the store; nil Roles and Servers are stored as empty lists) and returns its secret — shown this once, never stored —
	// and the stored info. A missing User gives ErrInvalid.
	Create(ctx context.Context, info KeyInfo) (secret string, stored KeyInfo, err error)
	// Lookup returns the key whose secret this is. An unknown, malformed or
	// revoked secret gives ErrNotFound.
	Lookup(ctx context.Context, secret string) (KeyInfo, error)
	// List returns every key, revoked ones included, oldest first.
	List(ctx context.Context) ([]KeyInfo, error)
	// Revoke makes the key unusable; an unknown id gives ErrNotFound.
	// Revoking a revoked key is not an error.
	Revoke(ctx context.Context, id string) error
}

// KeyPrefix starts every API key secret.
const KeyPrefix = "mcpb_"

const keySecretBytes = 32

// keySecretLen is the length of a secret: prefix + unpadded base64url of 32 bytes.
var keySecretLen = len(KeyPrefix) + base64.RawURLEncoding.EncodedLen(keySecretBytes)

// NewKey returns a fresh secret, its hash (as HashKey computes it), its hint
// and a fresh key id.
func NewKey() (secret, hash, hint, id string, err error) {
	var b [keySecretBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", "", "", fmt.Errorf("generating key secret: %w", err)
	}
	secret = KeyPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	idPart, err := RandomID(8)
	if err != nil {
		return "", "", "", "", err
	}
	return secret, HashKey(secret), secret[:len(KeyPrefix)+4], "key_" + idPart, nil
}

// HashKey returns the lowercase hex SHA-256 of secret, the form in which
// keys are stored and looked up.
func HashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CheckKeySecret returns an error wrapping ErrNotFound when secret cannot be
// a key this store made (wrong prefix or length), so that callers reject it
// without a database round trip. The error does not echo the secret.
func CheckKeySecret(secret string) error {
	if len(secret) != keySecretLen || !strings.HasPrefix(secret, KeyPrefix) {
		return fmt.Errorf("API key is not of the form %s<43 base64url characters>: %w", KeyPrefix, ErrNotFound)
	}
	return nil
}

// RandomID returns n random bytes as lowercase hex.
func RandomID(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating random id: %w", err)
	}
	return hex.EncodeToString(b), nil
}
