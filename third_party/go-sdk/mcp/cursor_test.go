// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by an MIT-style
// license that can be found in the LICENSE file.

package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/gob"
	"strings"
	"testing"
)

// The hand-written cursor is the gob stream encoding/gob writes for a pageToken, and
// encoding/gob reads it back (mcpbridge patch, see MCPBRIDGE-PATCH.md).
func TestCursorIsGob(t *testing.T) {
	for _, uid := range []string{"", "a", "tool_1", "ünïcødé", strings.Repeat("x", 127), strings.Repeat("y", 128),
		strings.Repeat("z", 255), strings.Repeat("w", 256), strings.Repeat("v", 70000)} {
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(pageToken{LastUID: uid}); err != nil {
			t.Fatal(err)
		}
		want := base64.URLEncoding.EncodeToString(buf.Bytes())
		got, err := encodeCursor(uid)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("encodeCursor(%.20q) = %.60s..., gob writes %.60s...", uid, got, want)
		}
		tok, err := decodeCursor(want)
		if err != nil || tok.LastUID != uid {
			t.Errorf("decodeCursor(gob of %.20q) = %v, %v", uid, tok, err)
		}
		raw, _ := base64.URLEncoding.DecodeString(got)
		var back pageToken
		if err := gob.NewDecoder(bytes.NewReader(raw)).Decode(&back); err != nil || back.LastUID != uid {
			t.Errorf("gob reads encodeCursor(%.20q) as %q, %v", uid, back.LastUID, err)
		}
	}
}

func TestDecodeCursorRejects(t *testing.T) {
	good, _ := encodeCursor("abc")
	raw, _ := base64.URLEncoding.DecodeString(good)
	for name, b := range map[string][]byte{
		"empty":     nil,
		"type only": raw[:len(gobPageTokenType)],
		"truncated": raw[:len(raw)-2],
		"trailing":  append(append([]byte(nil), raw...), 0),
		"long":      append(append([]byte(nil), raw[:len(raw)-1]...), 'x', 0),
	} {
		if tok, err := decodeCursor(base64.URLEncoding.EncodeToString(b)); err == nil {
			t.Errorf("%s: decodeCursor = %v, want an error", name, tok)
		}
	}
	if _, err := decodeCursor("!!"); err == nil {
		t.Error("decodeCursor accepts bad base64")
	}
}
