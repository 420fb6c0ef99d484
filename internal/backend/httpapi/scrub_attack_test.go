package httpapi_test

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cutPin is a secret made of digits.
const cutPin = "98765432109876"

func setLeakSecrets(t *testing.T) {
	t.Setenv("MCPBRIDGE_SECRET_CUT_KEY", cutKey)
	t.Setenv("MCPBRIDGE_SECRET_CUT_PIN", cutPin)
}

// cutKey is 29 characters long: issue 12 reported 28 of its 29 characters coming back when
// max_output cut a response inside it.
const cutKey = "sk-cut-0123456789abcdefghijkl"

// leakServer is an upstream that echoes the X-Api-Key header it receives back inside its
// response bodies, in several shapes.
func leakServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	// /text?pad=N answers N bytes of padding and then the key.
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Query().Get("pad"), "%d", &n)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, strings.Repeat(".", n)+r.Header.Get("X-Api-Key")+" and more text after it")
	})
	// /octet answers the key inside binary data, raw and base64-encoded.
	mux.HandleFunc("/octet", func(w http.ResponseWriter, r *http.Request) {
		k := r.Header.Get("X-Api-Key")
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte("\x00\x01\xfe" + k + "\xff\x00" + base64.StdEncoding.EncodeToString([]byte(k)) + "\x00"))
	})
	// /image answers a PNG whose text chunk holds the key.
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(append(append([]byte(nil), pngBytes...), "\x00\x00\x00\x1dtEXtComment\x00"+r.Header.Get("X-Api-Key")...))
	})
	// /number answers the key as a JSON number (a key made of digits).
	mux.HandleFunc("/number", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"n":%s,"list":[%s]}`, r.Header.Get("X-Pin"), r.Header.Get("X-Pin"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func leakConfig(base string, maxOutput int) string {
	return fmt.Sprintf(`kind: http
description: echoes its key
base_url: %s
allow_private: true
headers: {X-Api-Key: secret:CUT_KEY}
tools:
  text:
    description: text ending inside the key when cut
    inputSchema: {type: object, properties: {pad: {type: integer}}}
    method: GET
    path: /text
    max_output: %d
    mappings: [{field: pad, in: query, direct: pad}]
  octet:
    description: binary holding the key
    method: GET
    path: /octet
  image:
    description: image holding the key
    method: GET
    path: /image
  number:
    description: JSON echoing a numeric secret as a number
    method: GET
    path: /number
    headers: {X-Pin: secret:CUT_PIN}
`, base, maxOutput)
}

// assertNoKeyPiece fails if s holds the key whole, or any piece of 4 or more characters of
// it (which is what a cut leaves), in any encoding a client might decode.
func assertNoKeyPiece(t *testing.T, where, s string) {
	t.Helper()
	for k := len(cutKey); k >= 4; k-- {
		for i := 0; i+k <= len(cutKey); i++ {
			if p := cutKey[i : i+k]; strings.Contains(s, p) {
				t.Errorf("%s holds %d of the key's %d characters (%q): %s", where, k, len(cutKey), p, s)
				return
			}
		}
	}
}

// TestScrubAtCut is the attack of issue 12 point 3: max_output cuts the response inside the
// secret, so the whole-secret replacement does not recognise what is left of it.
func TestScrubAtCut(t *testing.T) {
	setLeakSecrets(t)
	srv := leakServer(t)
	const pad = 100
	for keep := 1; keep <= len(cutKey); keep++ {
		b := mustOpen(t, leakConfig(srv.URL, pad+keep))
		res := callTool(t, b, "text", map[string]any{"pad": pad})
		if res.IsError {
			t.Fatalf("cut after %d key bytes: %s", keep, resultText(res))
		}
		text := resultText(res)
		if !strings.Contains(text, "[truncated") {
			t.Fatalf("cut after %d key bytes: not truncated: %q", keep, text)
		}
		// Whole occurrences are checked too: the untouched text must still be there.
		if !strings.HasPrefix(text, strings.Repeat(".", pad)) {
			t.Errorf("cut after %d key bytes: the text before the key is gone: %q", keep, text)
		}
		assertNoKeyPiece(t, fmt.Sprintf("result cut after %d of the key's bytes", keep), resultJSON(t, res))
	}
}

// TestScrubBinary is the binary half of point 3: octet-stream and image bodies were returned
// as base64 without scrubbing.
func TestScrubBinary(t *testing.T) {
	setLeakSecrets(t)
	srv := leakServer(t)
	b := mustOpen(t, leakConfig(srv.URL, 1<<20))
	for _, name := range []string{"octet", "image"} {
		res := callTool(t, b, name, nil)
		if res.IsError {
			t.Fatalf("%s: %s", name, resultText(res))
		}
		var data []byte
		for _, c := range res.Content {
			switch c := c.(type) {
			case *mcp.ImageContent:
				data = c.Data
			case *mcp.EmbeddedResource:
				data = c.Resource.Blob
			}
		}
		if data == nil {
			t.Fatalf("%s: no binary content in %s", name, resultJSON(t, res))
		}
		assertNoKeyPiece(t, name+" bytes", string(data))
		assertNoKeyPiece(t, name+" base64 content decoded twice", decodeAll(data))
		if !strings.Contains(string(data), "[secret CUT_KEY]") {
			t.Errorf("%s: the key is not replaced by its name: %q", name, data)
		}
		// The JSON the client receives: base64 of the scrubbed bytes.
		all := resultJSON(t, res)
		assertNoKeyPiece(t, name+" result", all)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
			if e := enc.EncodeToString([]byte(cutKey)); strings.Contains(all, e[:len(e)-4]) {
				t.Errorf("%s: the result holds the base64 of the key", name)
			}
		}
	}
}

// decodeAll decodes every base64 run in b that decodes, so a secret base64-encoded inside
// binary content is found.
func decodeAll(b []byte) string {
	var out strings.Builder
	for _, f := range strings.FieldsFunc(string(b), func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' || r == '=')
	}) {
		if d, err := base64.StdEncoding.DecodeString(f); err == nil {
			out.Write(d)
			out.WriteByte(' ')
		}
	}
	return out.String()
}

// TestScrubNumber: a secret made of digits echoed as a JSON number was left in
// structuredContent (numbers are kept exact as json.Number, which is not a string).
func TestScrubNumber(t *testing.T) {
	setLeakSecrets(t)
	b := mustOpen(t, leakConfig(leakServer(t).URL, 1<<20))
	res := callTool(t, b, "number", nil)
	if res.IsError {
		t.Fatal(resultText(res))
	}
	if all := resultJSON(t, res); strings.Contains(all, cutPin) || !strings.Contains(all, `"n":"[secret CUT_PIN]"`) {
		t.Errorf("numeric secret not replaced: %s", all)
	}
}
