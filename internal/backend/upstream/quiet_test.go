package upstream_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// A legacy (2025-11-25) client that declared none of sampling, elicitation and roots can be
// asked nothing in the middle of a `kind: mcp` call, so the gateway answers its calls with
// one application/json body (its lean path) instead of the SDK's event stream (issue 24);
// a client that declared any of them still gets the event stream its requests travel on.
// The answers are the upstream's either way, and an upstream's question to a client that
// cannot answer it is still refused with the reason. A Streamable HTTP upstream keeps the
// event stream (it may ask to be polled, which is relayed over it: TestUpstreamPollingIsRelayed).
func TestQuietClientGetsJSONAnswer(t *testing.T) {
	for _, isolation := range []string{"per-session", "shared"} {
		t.Run(isolation, func(t *testing.T) {
			srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    isolation: "+isolation+"\n"+stdioUpstream(t, nil, ""))
			url := srv.URL + "/mcp/up"
			quiet := rawSession(t, url, `{}`)
			ct, msg := rawCall(t, url, quiet, "echo", `{"text":"hi"}`)
			if ct != "application/json" {
				t.Errorf("quiet client: Content-Type %q, want application/json", ct)
			}
			if !strings.Contains(msg, `"hi"`) || strings.Contains(msg, `"isError":true`) {
				t.Errorf("quiet client: answer %s, want the echo of hi", msg)
			}
			ct, msg = rawCall(t, url, quiet, "ask", `{}`)
			// Refused by the gateway (shared: the upstream session declared elicitation for
			// the callers that can answer) or by the upstream (per-session: this caller's
			// upstream session declared no elicitation).
			if ct != "application/json" || !strings.Contains(msg, `"isError":true`) || !strings.Contains(msg, "elicitation") {
				t.Errorf("quiet client asked for input: %q %s, want a JSON answer saying the client cannot answer", ct, msg)
			}
			for _, caps := range []string{`{"sampling":{}}`, `{"elicitation":{}}`, `{"roots":{"listChanged":true}}`} {
				sid := rawSession(t, url, caps)
				ct, msg := rawCall(t, url, sid, "echo", `{"text":"hi"}`)
				if !strings.HasPrefix(ct, "text/event-stream") || !strings.Contains(msg, `"hi"`) {
					t.Errorf("client declaring %s: %q %s, want the echo on an event stream", caps, ct, msg)
				}
			}
		})
	}
	srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    url: "+startHTTPServer(t)+"\n")
	url := srv.URL + "/mcp/up"
	if ct, msg := rawCall(t, url, rawSession(t, url, `{}`), "echo", `{"text":"hi"}`); !strings.HasPrefix(ct, "text/event-stream") || !strings.Contains(msg, `"hi"`) {
		t.Errorf("HTTP upstream, quiet client: %q %s, want the echo on an event stream", ct, msg)
	}
}

// rawPost posts one JSON-RPC message at 2025-11-25 and returns the response and its body.
func rawPost(t *testing.T, url, sid, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// rawSession opens a 2025-11-25 session whose client declares caps and returns its id.
func rawSession(t *testing.T, url, caps string) string {
	t.Helper()
	resp, body := rawPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"raw","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	if resp, body := rawPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", resp.StatusCode, body)
	}
	return sid
}

// rawCall calls tool on session sid and returns the answer's Content-Type and its JSON-RPC
// message (the last data of an event stream).
func rawCall(t *testing.T, url, sid, tool, args string) (string, string) {
	t.Helper()
	resp, body := rawPost(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("tools/call %s: %d %s", tool, resp.StatusCode, body)
	}
	ct := resp.Header.Get("Content-Type")
	msg := body
	if strings.HasPrefix(ct, "text/event-stream") {
		msg = ""
		for line := range strings.Lines(body) {
			if d, ok := strings.CutPrefix(line, "data:"); ok && strings.TrimSpace(d) != "" {
				msg = strings.TrimSpace(d)
			}
		}
	}
	if !json.Valid([]byte(msg)) {
		t.Fatalf("tools/call %s: no JSON-RPC message in %q", tool, body)
	}
	return ct, msg
}
