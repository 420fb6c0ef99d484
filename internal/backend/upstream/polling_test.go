package upstream_test

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// An upstream that ends a call's event stream before its answer, asking to be polled
// (SEP-1699), has its request relayed: the gateway ends the 2025-11-25 client's stream of
// the call in turn, with a retry delay, and the client takes the answer up with a GET and
// Last-Event-ID. The answer is the upstream's when the upstream's stream could be resumed
// (it keeps an event store), and a tool error that says the answer was lost when it could
// not: the answer never leaves such an upstream.
func TestUpstreamPollingIsRelayed(t *testing.T) {
	for _, c := range []struct {
		name string
		env  []string
		want string
	}{
		{"resumable", []string{"UPSTREAM_TEST_EVENTS=1"}, `"text":"polled"`},
		{"not resumable", nil, "its answer is lost"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    url: "+startHTTPServer(t, c.env...)+"\n")
			raw := rawPoster{url: srv.URL + "/mcp/up"}
			raw.open(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			post, _ := http.NewRequestWithContext(ctx, http.MethodPost, raw.url, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"poll","arguments":{}}}`))
			post.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
				"Mcp-Session-Id": {raw.session}, "Mcp-Protocol-Version": {"2025-11-25"}}
			resp, err := http.DefaultClient.Do(post)
			if err != nil {
				t.Fatal(err)
			}
			events := readEvents(t, resp)
			var lastID, retry string
			for _, e := range events {
				if e["id"] != "" {
					lastID = e["id"]
				}
				if e["retry"] != "" {
					retry = e["retry"]
				}
				if strings.Contains(e["data"], `"id":7`) {
					t.Fatalf("the answer came on the POST stream, which the upstream ended: %v", events)
				}
			}
			if lastID == "" || retry != "20" {
				t.Fatalf("the POST stream ended without an event id to resume from and retry 20: %v", events)
			}
			get, _ := http.NewRequestWithContext(ctx, http.MethodGet, raw.url, nil)
			get.Header = http.Header{"Accept": {"text/event-stream"}, "Mcp-Session-Id": {raw.session},
				"Mcp-Protocol-Version": {"2025-11-25"}, "Last-Event-Id": {lastID}}
			resp, err = http.DefaultClient.Do(get)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				line := sc.Text()
				if !strings.HasPrefix(line, "data:") || !strings.Contains(line, `"id":7`) {
					continue
				}
				if !strings.Contains(line, c.want) {
					t.Errorf("the answer on the resumed stream is %s; want it to contain %s", line, c.want)
				}
				return
			}
			t.Fatalf("the resumed stream ended without the answer: %v", sc.Err())
		})
	}
}

// readEvents reads an event stream to its end: each event's id, retry, event and data.
func readEvents(t *testing.T, resp *http.Response) []map[string]string {
	t.Helper()
	defer resp.Body.Close()
	var out []map[string]string
	cur := map[string]string{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = map[string]string{}
			continue
		}
		k, v, _ := bytes.Cut(line, []byte(":"))
		cur[string(k)] = strings.TrimSpace(string(v))
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
