package secret

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

const key = "sk-live-0123456789/abc+def é" // has '/', '+', a space and a non-ASCII letter

func TestScrubberString(t *testing.T) {
	sc := NewLabeledScrubber(Secret{Value: key, Label: "secret KEY"})
	jsonGo, _ := json.Marshal(key)
	tests := []struct {
		name, in string
	}{
		{"raw", "x " + key + " y"},
		{"json", "x " + string(jsonGo) + " y"},
		{"json slash", `x "` + strings.ReplaceAll(string(jsonGo[1:len(jsonGo)-1]), "/", `\/`) + `" y`},
		{"json ascii", `x "sk-live-0123456789/abc+def \u00e9" y`},
		{"query", "x?k=" + url.QueryEscape(key) + "&y"},
		{"query lower hex", "x?k=" + strings.ToLower(url.QueryEscape(key)) + "&y"},
		{"path", "/x/" + url.PathEscape(key) + "/y"},
		{"base64", "x " + base64.StdEncoding.EncodeToString([]byte(key)) + " y"},
		{"base64 raw url", "x " + base64.RawURLEncoding.EncodeToString([]byte(key)) + " y"},
		{"basic auth", "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+key))},
		{"basic auth offset 1", "Basic " + base64.StdEncoding.EncodeToString([]byte("u:"+key+"\n"))},
		{"basic auth offset 2", "Basic " + base64.StdEncoding.EncodeToString([]byte("us:"+key+"xy"))},
		{"twice", key + key},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sc.String(tt.in)
			if !strings.Contains(got, "[secret KEY]") {
				t.Errorf("String(%q) = %q, want the placeholder", tt.in, got)
			}
			assertNoPiece(t, got, key, 8)
			if !sc.Contains(tt.in) {
				t.Errorf("Contains(%q) = false", tt.in)
			}
			if sc.Contains(got) {
				t.Errorf("Contains(%q) = true after scrubbing", got)
			}
		})
	}
}

func TestScrubberKeepsOtherText(t *testing.T) {
	sc := NewScrubber("hunter22", "")
	for _, s := range []string{"", "hello", "hunter2", "a hunter 22", strings.Repeat("x", 100)} {
		if got := sc.String(s); got != s {
			t.Errorf("String(%q) = %q", s, got)
		}
		b := []byte(s)
		if got := sc.Bytes(b); string(got) != s {
			t.Errorf("Bytes(%q) = %q", s, got)
		}
	}
	if got := sc.String("a hunter22 b"); got != "a [redacted] b" {
		t.Errorf("got %q", got)
	}
}

func TestScrubberOverlappingSecrets(t *testing.T) {
	sc := NewLabeledScrubber(Secret{Value: "abcd1234", Label: "A"}, Secret{Value: "1234wxyz", Label: "B"})
	got := sc.String("--abcd1234wxyz--")
	if got != "--[A][B]--" {
		t.Errorf("got %q, want both replaced with nothing of either left", got)
	}
	if got := sc.String("abcd1234abcd1234"); got != "[A][A]" {
		t.Errorf("got %q", got)
	}
}

func TestScrubberNil(t *testing.T) {
	var sc *Scrubber
	if sc.String("x") != "x" || string(sc.Bytes([]byte("x"))) != "x" || string(sc.Cut([]byte("x"), CutEnd)) != "x" || sc.Contains("x") {
		t.Error("nil Scrubber changed its input")
	}
	var zero Scrubber
	if zero.String("x") != "x" || string(zero.Bytes([]byte("x"))) != "x" || string(zero.Cut([]byte("x"), CutEnd|CutStart)) != "x" {
		t.Error("zero Scrubber changed its input")
	}
}

// TestScrubberCut cuts an output holding the secret (in several forms) at every position
// and checks that no piece of MinPiece or more bytes of it is left at the edge, while the
// text before it is kept.
func TestScrubberCut(t *testing.T) {
	sc := NewLabeledScrubber(Secret{Value: key, Label: "K"})
	forms := map[string]string{
		"raw":    key,
		"query":  url.QueryEscape(key),
		"base64": base64.StdEncoding.EncodeToString([]byte(key)),
	}
	for name, f := range forms {
		out := "before " + f + " after"
		for n := 0; n <= len(out); n++ {
			head := sc.Cut([]byte(out[:n]), CutEnd)
			assertNoPiece(t, string(head), f, MinPiece)
			if n >= len("before ") && !strings.HasPrefix(string(head), "before ") {
				t.Errorf("%s: Cut(%q, CutEnd) = %q lost the text before the secret", name, out[:n], head)
			}
			tail := sc.Cut([]byte(out[n:]), CutStart)
			assertNoPiece(t, string(tail), f, MinPiece)
			if len(out)-n >= len(" after") && !strings.HasSuffix(string(tail), " after") {
				t.Errorf("%s: Cut(%q, CutStart) = %q lost the text after the secret", name, out[n:], tail)
			}
			for m := n; m <= len(out); m++ {
				mid := sc.Cut([]byte(out[n:m]), CutEnd|CutStart)
				assertNoPiece(t, string(mid), f, MinPiece)
			}
		}
	}
}

func TestScrubberShortSecret(t *testing.T) {
	sc := NewScrubber("abc")
	if got := sc.String("xabcx"); got != "x[redacted]x" {
		t.Errorf("short secret: got %q", got)
	}
	if got := string(sc.Cut([]byte("xxab"), CutEnd)); got != "xxab" {
		t.Errorf("a piece shorter than MinPiece was cut: %q", got)
	}
}

// TestScrubberBytes checks the binary forms: the raw secret inside binary data, and the
// bytes whose base64 encoding (as MCP blob content is sent) spells the secret.
func TestScrubberBytes(t *testing.T) {
	const b64key = "QWxhZGRpbjpvcGVuIHNlc2FtZQ0Kabcd" // a key made of base64 characters
	sc := NewScrubber(key, b64key)
	bin := append([]byte{0, 1, 0xff}, key...)
	if got := sc.Bytes(bin); strings.Contains(string(got), key) || !strings.Contains(string(got), "[redacted]") {
		t.Errorf("raw secret in binary: %q", got)
	}
	dec, _ := base64.StdEncoding.DecodeString(b64key)
	for pad := range 3 {
		data := append(append(make([]byte, pad), dec...), 0xfe, 0xfd)
		for shift := range 3 {
			d := append(make([]byte, shift), sc.Bytes(data)...)
			if enc := base64.StdEncoding.EncodeToString(d); strings.Contains(enc, b64key[4:]) {
				t.Errorf("pad %d shift %d: base64 of the scrubbed bytes spells the key: %s", pad, shift, enc)
			}
		}
	}
	// String does not look for decoded forms: text holding those bytes does not show the key.
	if got := sc.String(string(dec)); got != string(dec) {
		t.Errorf("String replaced decoded bytes: %q", got)
	}
}

// assertNoPiece fails if s holds a piece of secret of min or more bytes.
func assertNoPiece(t *testing.T, s, secret string, min int) {
	t.Helper()
	for k := len(secret); k >= min; k-- {
		for i := 0; i+k <= len(secret); i++ {
			if strings.Contains(s, secret[i:i+k]) {
				t.Errorf("%q holds %q, %d bytes of the secret", s, secret[i:i+k], k)
				return
			}
		}
	}
}
