package storetest

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

func testKeys(t *testing.T, open Opener) {
	s := open(t)
	ctx := ctxFor(t)
	keys := s.Keys

	secret, info, err := keys.Create(ctx, store.KeyInfo{Name: "ci", User: "alice", UserName: "Alice Ng", UserEmail: "alice@example.com",
		Roles: []string{"ops", "dev"}, Servers: []string{"crm", "billing"}, Admin: true})
	must(t, "Create", err)
	body, ok := strings.CutPrefix(secret, store.KeyPrefix)
	if raw, err := base64.RawURLEncoding.DecodeString(body); !ok || err != nil || len(raw) != 32 {
		t.Errorf("secret %q is not %s + base64url of 32 bytes", secret, store.KeyPrefix)
	}
	if info.ID == "" || info.CreatedAt.IsZero() || !info.RevokedAt.IsZero() || !strings.HasPrefix(secret, info.Hint) || len(info.Hint) >= len(secret)/2 {
		t.Errorf("Create info = %+v", info)
	}
	want := store.KeyInfo{ID: info.ID, Name: "ci", User: "alice", UserName: "Alice Ng", UserEmail: "alice@example.com",
		Roles: []string{"ops", "dev"}, Servers: []string{"crm", "billing"}, Admin: true, Hint: info.Hint, CreatedAt: info.CreatedAt}
	if diff := cmp.Diff(want, info); diff != "" {
		t.Errorf("Create info (-want +got):\n%s", diff)
	}

	got, err := keys.Lookup(ctx, secret)
	must(t, "Lookup", err)
	if diff := cmp.Diff(info, got); diff != "" {
		t.Errorf("Lookup (-create +lookup):\n%s", diff)
	}

	secret2, info2, err := keys.Create(ctx, store.KeyInfo{User: "bob"})
	must(t, "Create without roles", err)
	if secret2 == secret || info2.ID == info.ID {
		t.Error("two keys share a secret or id")
	}
	if info2.Roles == nil || len(info2.Roles) != 0 || info2.Servers == nil || len(info2.Servers) != 0 || info2.Admin {
		t.Errorf("key without roles: %+v, want empty non-nil Roles and Servers and no Admin", info2)
	}
	if got2, err := keys.Lookup(ctx, secret2); err != nil || got2.Servers == nil || len(got2.Servers) != 0 || got2.UserName != "" {
		t.Errorf("Lookup of a key without servers = %+v, %v; want empty non-nil Servers", got2, err)
	}

	t.Run("LookupFailures", func(t *testing.T) {
		// Flip one character of a valid secret: right shape, unknown key.
		flipped := []byte(secret)
		if flipped[len(flipped)-1] == 'A' {
			flipped[len(flipped)-1] = 'B'
		} else {
			flipped[len(flipped)-1] = 'A'
		}
		for name, s := range map[string]string{
			"unknown":      string(flipped),
			"empty":        "",
			"no prefix":    strings.TrimPrefix(secret, store.KeyPrefix),
			"truncated":    secret[:len(secret)-1],
			"extended":     secret + "A",
			"the hash":     store.HashKey(secret),
			"other prefix": "sk_" + strings.TrimPrefix(secret, store.KeyPrefix),
		} {
			_, err := keys.Lookup(ctx, s)
			wantErr(t, "Lookup "+name, err, store.ErrNotFound)
			if err != nil && s != "" && strings.Contains(err.Error(), s) {
				t.Errorf("Lookup %s: error echoes the secret: %v", name, err)
			}
		}
	})

	t.Run("CreateNeedsUser", func(t *testing.T) {
		_, _, err := keys.Create(ctx, store.KeyInfo{Name: "nobody"})
		wantErr(t, "Create without User", err, store.ErrInvalid)
	})

	t.Run("OnlyHashStored", func(t *testing.T) {
		d, ok := keys.(Dumper)
		if !ok {
			t.Fatalf("%T does not implement storetest.Dumper (DumpRows)", keys)
		}
		rows, err := d.DumpRows(ctx)
		must(t, "DumpRows", err)
		if len(rows) != 2 {
			t.Fatalf("api key table has %d rows, want 2: %q", len(rows), rows)
		}
		all := strings.Join(rows, "\n")
		for _, sec := range []string{secret, secret2} {
			tail := strings.TrimPrefix(sec, store.KeyPrefix)
			if strings.Contains(all, tail[4:]) || strings.Contains(all, tail[len(tail)-16:]) {
				t.Errorf("api key table contains (part of) a secret:\n%s", all)
			}
			if !strings.Contains(all, store.HashKey(sec)) {
				t.Errorf("api key table does not contain the SHA-256 hash %s of a secret", store.HashKey(sec))
			}
		}
	})

	t.Run("ListAndRevoke", func(t *testing.T) {
		list, err := keys.List(ctx)
		must(t, "List", err)
		if diff := cmp.Diff([]store.KeyInfo{info, info2}, list); diff != "" {
			t.Errorf("List (-want +got):\n%s", diff)
		}
		must(t, "Revoke", keys.Revoke(ctx, info.ID))
		_, err = keys.Lookup(ctx, secret)
		wantErr(t, "Lookup revoked", err, store.ErrNotFound)
		if _, err := keys.Lookup(ctx, secret2); err != nil {
			t.Errorf("Lookup of the other key after Revoke: %v", err)
		}
		list, err = keys.List(ctx)
		must(t, "List after Revoke", err)
		if len(list) != 2 || list[0].RevokedAt.IsZero() || !list[1].RevokedAt.IsZero() {
			t.Errorf("List after Revoke = %+v; want the first revoked, the second not", list)
		}
		first := list[0].RevokedAt
		must(t, "Revoke again", keys.Revoke(ctx, info.ID))
		list, err = keys.List(ctx)
		must(t, "List after second Revoke", err)
		if !list[0].RevokedAt.Equal(first) {
			t.Errorf("second Revoke moved RevokedAt from %v to %v", first, list[0].RevokedAt)
		}
		wantErr(t, "Revoke unknown", keys.Revoke(ctx, "key_unknown"), store.ErrNotFound)
	})
}
