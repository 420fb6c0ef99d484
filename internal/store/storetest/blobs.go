package storetest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

func testBlobs(t *testing.T, open Opener) {
	s := open(t)
	ctx := ctxFor(t)

	t.Run("RoundTrip", func(t *testing.T) {
		tests := []struct {
			name string
			data []byte
		}{
			{"empty", []byte{}},
			{"text", []byte("hello, world\n")},
			{"binary", []byte{0, 1, 2, 0xff, 0xfe, 0, '\'', '"', '\\'}},
			{"large", bytes.Repeat([]byte("0123456789abcdef"), 64<<10)}, // 1 MiB
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				sum := sha256.Sum256(tc.data)
				wantID := "sha256-" + hex.EncodeToString(sum[:])
				id, err := s.Blobs.Put(ctx, tc.data)
				must(t, "Put", err)
				if id != wantID {
					t.Errorf("Put id = %q, want %q", id, wantID)
				}
				got, err := s.Blobs.Get(ctx, id)
				must(t, "Get", err)
				if !bytes.Equal(got, tc.data) || got == nil {
					t.Errorf("Get returned %d bytes (nil=%v), want the %d stored", len(got), got == nil, len(tc.data))
				}
				again, err := s.Blobs.Put(ctx, tc.data)
				if err != nil || again != id {
					t.Errorf("second Put = %q, %v; want %q, nil (idempotent)", again, err, id)
				}
			})
		}
	})

	t.Run("ConcurrentSameContent", func(t *testing.T) {
		data := []byte("same content from many writers")
		var wg sync.WaitGroup
		ids := make([]string, 8)
		errs := make([]error, 8)
		for i := range ids {
			wg.Go(func() { ids[i], errs[i] = s.Blobs.Put(ctx, data) })
		}
		wg.Wait()
		for i := range ids {
			if errs[i] != nil || ids[i] != store.BlobID(data) {
				t.Errorf("writer %d: Put = %q, %v", i, ids[i], errs[i])
			}
		}
	})

	t.Run("Errors", func(t *testing.T) {
		_, err := s.Blobs.Get(ctx, store.BlobID([]byte("never stored")))
		wantErr(t, "Get unknown", err, store.ErrNotFound)
		for _, id := range []string{"", "sha256-", "sha256-xyz", "md5-" + strings.Repeat("a", 64),
			"sha256-" + strings.Repeat("A", 64), "sha256-" + strings.Repeat("a", 63), "sha256-" + strings.Repeat("g", 64)} {
			_, err := s.Blobs.Get(ctx, id)
			wantErr(t, "Get "+id, err, store.ErrInvalid)
		}
		big := make([]byte, store.DefaultMaxBlobBytes+1)
		_, err = s.Blobs.Put(ctx, big)
		wantErr(t, "Put over the limit", err, store.ErrTooLarge)
		if err != nil && !strings.Contains(err.Error(), "limit") {
			t.Errorf("too-large error %q does not mention the limit", err)
		}
		_, err = s.Blobs.Get(ctx, store.BlobID(big))
		wantErr(t, "Get of refused blob", err, store.ErrNotFound)
		exact := make([]byte, store.DefaultMaxBlobBytes)
		_, err = s.Blobs.Put(ctx, exact)
		must(t, "Put at exactly the limit", err)
	})
}
