package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func responseServer(base string) string {
	return fmt.Sprintf(`kind: http
description: response tests
base_url: %s
allow_private: true
tools:
  get_user:
    description: JSON object
    inputSchema: {type: object, properties: {id: {type: string}, verbose: {type: boolean}}, required: [id]}
    method: GET
    path: /users/{id}
    mappings:
      - {field: id, in: path, direct: id}
      - {field: verbose, in: query, direct: verbose}
  create_note:
    description: shaped response
    inputSchema: {type: object, properties: {title: {type: string}}, required: [title]}
    method: POST
    path: /notes
    body: json
    mappings: [{field: title, in: body, direct: title}]
    response: {expression: "response.body.note"}
  shaped_text:
    description: response expression producing text from status and headers
    inputSchema: {type: object, properties: {title: {type: string}}, required: [title]}
    method: POST
    path: /notes
    body: json
    mappings: [{field: title, in: body, direct: title}]
    response: {expression: "args.title + ' -> ' + response.status + ' ' + response.headers['content-type'] + ' ' + response.body.status"}
  shaped_bad:
    description: response expression that throws
    inputSchema: {type: object}
    method: GET
    path: /array
    response: {expression: "response.body.nope.deeper"}
  created:
    description: empty body shaped from status and headers
    method: GET
    path: /empty
    response: {expression: "({status: response.status, empty: response.body === null})"}
  array:    {description: JSON array, method: GET, path: /array}
  text:     {description: text, method: GET, path: /text}
  empty:    {description: 204, method: GET, path: /empty}
  image:    {description: png, method: GET, path: /image}
  audio:    {description: wav, method: GET, path: /audio}
  flac:     {description: flac sent as octet-stream, method: GET, path: /flac}
  binary:   {description: pdf, method: GET, path: /binary}
  notutf8:  {description: invalid UTF-8 labelled text, method: GET, path: /notutf8}
  big:      {description: long text, method: GET, path: /big, max_output: 100}
  bigjson:  {description: long JSON, method: GET, path: /bigjson, max_output: 100}
  bigimage: {description: image over max_output, method: GET, path: /image, max_output: 10}
  status:
    description: any status
    inputSchema: {type: object, properties: {code: {type: integer}, q: {type: string}}, required: [code]}
    method: GET
    path: /status/{code}
    mappings:
      - {field: code, in: path, direct: code}
      - {field: q, in: query, direct: q}
  slow:
    description: never answers in time
    method: GET
    path: /slow
    timeout: 200ms
`, base)
}

func TestResponses(t *testing.T) {
	up := newUpstream(t)
	b := mustOpen(t, responseServer(up.URL))

	t.Run("JSON object becomes structured content plus text, numbers exact", func(t *testing.T) {
		res := callTool(t, b, "get_user", map[string]any{"id": "42", "verbose": true})
		if res.IsError {
			t.Fatal(resultText(res))
		}
		want := `{"id":"42","name":"Ada","verbose":"true","n":12345678901234567890}`
		if got := resultText(res); got != want {
			t.Errorf("text = %s, want %s", got, want)
		}
		sc, _ := json.Marshal(res.StructuredContent)
		var a, w any
		json.Unmarshal(sc, &a)
		json.Unmarshal([]byte(want), &w)
		if diff := cmp.Diff(w, a); diff != "" {
			t.Errorf("structured (-want +got):\n%s", diff)
		}
		if !strings.Contains(string(sc), "12345678901234567890") {
			t.Errorf("big integer not kept exactly: %s", sc)
		}
	})
	t.Run("JSON array is wrapped as {result: ...}", func(t *testing.T) {
		res := callTool(t, b, "array", nil)
		sc, _ := json.Marshal(res.StructuredContent)
		if string(sc) != `{"result":[1,"two",{"three":3}]}` || resultText(res) != `[1,"two",{"three":3}]` {
			t.Errorf("structured %s, text %s", sc, resultText(res))
		}
	})
	t.Run("response expression shapes the result", func(t *testing.T) {
		res := callTool(t, b, "create_note", map[string]any{"title": "hello"})
		sc, _ := json.Marshal(res.StructuredContent)
		if res.IsError || string(sc) != `{"title":"hello"}` || resultText(res) != `{"title":"hello"}` {
			t.Errorf("isError %v structured %s text %s", res.IsError, sc, resultText(res))
		}
	})
	t.Run("response expression sees args, status and headers", func(t *testing.T) {
		res := callTool(t, b, "shaped_text", map[string]any{"title": "hi"})
		want := "hi -> 200 application/json; charset=utf-8 created"
		if res.IsError || resultText(res) != want || res.StructuredContent != nil {
			t.Errorf("got %q (isError %v, structured %v), want text %q", resultText(res), res.IsError, res.StructuredContent, want)
		}
	})
	t.Run("response expression error names the expression and position", func(t *testing.T) {
		res := callTool(t, b, "shaped_bad", nil)
		got := resultText(res)
		if !res.IsError || !strings.Contains(got, "response.expression: the expression failed at line 1, column") || !strings.Contains(got, "TypeError") {
			t.Errorf("got %q", got)
		}
	})
	t.Run("text stays text", func(t *testing.T) {
		res := callTool(t, b, "text", nil)
		if res.IsError || resultText(res) != "plain text ✓" || res.StructuredContent != nil {
			t.Errorf("got %q", resultText(res))
		}
	})
	t.Run("204 says so with the status", func(t *testing.T) {
		res := callTool(t, b, "empty", nil)
		if res.IsError || resultText(res) != "HTTP 204 No Content: GET /empty succeeded and returned no body." {
			t.Errorf("got %q", resultText(res))
		}
	})
	t.Run("response expression on an empty body, keys in the expression's order", func(t *testing.T) {
		res := callTool(t, b, "created", nil)
		sc, _ := json.Marshal(res.StructuredContent)
		if res.IsError || string(sc) != `{"status":204,"empty":true}` {
			t.Errorf("got %s", resultJSON(t, res))
		}
	})
	t.Run("image becomes image content", func(t *testing.T) {
		res := callTool(t, b, "image", nil)
		var img *mcp.ImageContent
		for _, c := range res.Content {
			if i, ok := c.(*mcp.ImageContent); ok {
				img = i
			}
		}
		if res.IsError || img == nil || img.MIMEType != "image/png" || string(img.Data) != string(pngBytes) {
			t.Fatalf("got %s", resultJSON(t, res))
		}
		if !strings.Contains(resultJSON(t, res), `"type":"image"`) {
			t.Errorf("wire form: %s", resultJSON(t, res))
		}
	})
	t.Run("audio becomes audio content", func(t *testing.T) {
		res := callTool(t, b, "audio", nil)
		var au *mcp.AudioContent
		for _, c := range res.Content {
			if a, ok := c.(*mcp.AudioContent); ok {
				au = a
			}
		}
		if res.IsError || au == nil || au.MIMEType != "audio/wav" || !strings.HasPrefix(string(au.Data), "RIFF") {
			t.Fatalf("got %s", resultJSON(t, res))
		}
	})
	t.Run("untyped audio is sniffed", func(t *testing.T) {
		res := callTool(t, b, "flac", nil)
		var au *mcp.AudioContent
		for _, c := range res.Content {
			if a, ok := c.(*mcp.AudioContent); ok {
				au = a
			}
		}
		if res.IsError || au == nil || au.MIMEType != "audio/flac" {
			t.Fatalf("got %s", resultJSON(t, res))
		}
	})
	for _, tc := range []struct{ tool, mime string }{{"binary", "application/pdf"}, {"notutf8", "text/plain"}} {
		t.Run(tc.tool+" becomes an embedded resource blob", func(t *testing.T) {
			res := callTool(t, b, tc.tool, nil)
			var er *mcp.EmbeddedResource
			for _, c := range res.Content {
				if e, ok := c.(*mcp.EmbeddedResource); ok {
					er = e
				}
			}
			if res.IsError || er == nil || er.Resource.MIMEType != tc.mime || len(er.Resource.Blob) == 0 {
				t.Fatalf("got %s", resultJSON(t, res))
			}
			if er.Resource.URI != up.URL+"/"+tc.tool {
				t.Errorf("URI = %s", er.Resource.URI)
			}
			if !strings.Contains(resultJSON(t, res), `"blob":"`) {
				t.Errorf("wire form has no base64 blob: %s", resultJSON(t, res))
			}
		})
	}
	t.Run("long text is cut at max_output with a note", func(t *testing.T) {
		got := resultText(callTool(t, b, "big", nil))
		if !strings.HasPrefix(got, strings.Repeat("0123456789", 10)+"\n[truncated") || !strings.Contains(got, "max_output (100 bytes)") {
			t.Errorf("got %q", got)
		}
	})
	t.Run("long JSON is cut, without structured content", func(t *testing.T) {
		res := callTool(t, b, "bigjson", nil)
		if res.IsError || res.StructuredContent != nil || !strings.HasPrefix(resultText(res), `{"data":"xxxx`) || !strings.Contains(resultText(res), "[truncated") {
			t.Errorf("got %s", resultJSON(t, res))
		}
	})
	t.Run("binary over max_output is an error", func(t *testing.T) {
		res := callTool(t, b, "bigimage", nil)
		if !res.IsError || !strings.Contains(resultText(res), "raise max_output") {
			t.Errorf("got %s", resultJSON(t, res))
		}
	})
	for _, tc := range []struct {
		code int
		want []string
	}{
		{400, []string{"GET /status/400 failed: HTTP 400 Bad Request.", "check the arguments", `{"error":"status 400"`}},
		{401, []string{"HTTP 401 Unauthorized", "credentials"}},
		{404, []string{"HTTP 404 Not Found", "path parameters"}},
		{429, []string{"HTTP 429 Too Many Requests", "retry after 7"}},
		{500, []string{"HTTP 500 Internal Server Error", "retrying later"}},
		{503, []string{"HTTP 503 Service Unavailable"}},
	} {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			res := callTool(t, b, "status", map[string]any{"code": tc.code, "q": "query-value-not-shown"})
			got := resultText(res)
			if !res.IsError {
				t.Fatalf("isError false: %q", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q does not contain %q", got, w)
				}
			}
			if strings.Contains(got, "query-value-not-shown") {
				t.Errorf("error shows a query value: %q", got)
			}
			if ex := got[strings.Index(got, "\n")+1:]; len(ex) > 1100 {
				t.Errorf("excerpt is %d bytes, want ≤ 1 KiB (+ label)", len(ex))
			}
		})
	}
	t.Run("timeout says what failed and what to do", func(t *testing.T) {
		// /slow answers (200, empty) after 5 s, 25 times the limit: an error result shows
		// the limit cut the call short, with no clock in the test.
		res := callTool(t, b, "slow", nil)
		got := resultText(res)
		if !res.IsError || !strings.Contains(got, "GET /slow timed out after 200ms while waiting for the answer from 127.0.0.1:") || !strings.Contains(got, "raise timeout") {
			t.Errorf("got %q", got)
		}
	})
}

func TestConnectionRefused(t *testing.T) {
	up := newUpstream(t)
	addr := up.Listener.Addr().String()
	up.Close() // nothing listens there any more
	b := mustOpen(t, fmt.Sprintf(`kind: http
description: d
base_url: http://%s
allow_private: true
tools:
  t: {description: d, method: GET, path: /x}
`, addr))
	res := callTool(t, b, "t", nil)
	got := resultText(res)
	if !res.IsError || !strings.Contains(got, "refused the connection") || !strings.Contains(got, "base_url of server api") {
		t.Errorf("got %q", got)
	}
}

func TestMappingExpressionErrors(t *testing.T) {
	up := newUpstream(t)
	b := mustOpen(t, fmt.Sprintf(`kind: http
description: d
base_url: %s
allow_private: true
tools:
  throws:
    description: d
    inputSchema: {type: object, properties: {title: {type: string}}}
    method: POST
    path: /echo
    body: json
    mappings:
      - {field: a, in: body, constant: 1}
      - {field: note.title, in: body, expression: "const t = args.title;\nt.toUpperCase()"}
  custom_throw:
    description: d
    method: GET
    path: /echo
    mappings: [{field: x, in: query, expression: "(() => { throw new Error('bad input') })()"}]
  loops:
    description: d
    method: GET
    path: /echo
    mappings: [{field: X-Loop, in: header, expression: "while (true) {}"}]
  huge:
    description: d
    method: GET
    path: /echo
    mappings: [{field: q, in: query, expression: "'x'.repeat(2**40)"}]
`, up.URL))
	before := up.count()
	cases := []struct {
		tool string
		want []string
	}{
		{"throws", []string{"mappings[1] (body field note.title)", "at line 2, column", "TypeError"}},
		{"custom_throw", []string{"mappings[0] (query x)", "Error: bad input"}},
		{"loops", []string{"mappings[0] (header X-Loop)", "did not finish in time", "endless loop"}},
		{"huge", []string{"mappings[0] (query q)", "RangeError", "memory"}},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			start := time.Now()
			res := callTool(t, b, c.tool, map[string]any{})
			got := resultText(res)
			if !res.IsError {
				t.Fatalf("isError false: %q", got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q does not contain %q", got, w)
				}
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	if n := up.count() - before; n != 0 {
		t.Errorf("%d requests were sent despite failing expressions", n)
	}
}
