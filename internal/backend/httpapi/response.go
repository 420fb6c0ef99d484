package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

// call runs one tool call: build, send, read, shape. Every failure is a tool error result.
func (b *Backend) call(ctx context.Context, t *tool, args map[string]any) *mcp.CallToolResult {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	// Whether the request went out tells a failure while connecting or sending from one
	// while the API was working on its answer.
	var sent atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { sent.Store(true) }})
	bt, err := t.build(ctx, args)
	if err != nil {
		return b.failure(err)
	}
	req := guardRedirects(bt, b.scrub)
	display := b.scrub.String(bt.display)
	resp, err := b.client.Do(req)
	if err != nil {
		if sent.Load() {
			return b.transportFailure(ctx, t, display, phaseWaiting, err)
		}
		return b.transportFailure(ctx, t, display, phaseSending, err)
	}
	defer drainClose(resp.Body)
	data, truncated, err := readLimited(resp.Body, t.maxOutput)
	if err != nil {
		return b.transportFailure(ctx, t, display, phaseReading, err)
	}
	return b.respond(ctx, t, args, display, resp, data, truncated)
}

// failure turns a build or shaping error into a tool error, secrets scrubbed.
func (b *Backend) failure(err error) *mcp.CallToolResult {
	var ce *callError
	if errors.As(err, &ce) {
		return backend.ErrorResult("%s", b.scrub.String(ce.msg))
	}
	return backend.ErrorResult("%s", b.scrub.String(err.Error()))
}

// readLimited reads at most max+1 bytes; truncated reports that the body is longer than max
// (data then holds the first max bytes).
func readLimited(r io.Reader, max int64) (data []byte, truncated bool, err error) {
	var buf bytes.Buffer
	_, err = buf.ReadFrom(io.LimitReader(r, max+1))
	data = buf.Bytes()
	if int64(len(data)) > max {
		return data[:max], true, err
	}
	return data, false, err
}

// drainClose discards a bounded rest of the body so the connection can be reused, then closes it.
func drainClose(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, drainLimit)
	_ = body.Close()
}

type bodyKind int

const (
	kindEmpty bodyKind = iota
	kindJSON
	kindText
	kindBinary
)

// classify decides how a body is returned from its media type and content.
func classify(mediaType string, data []byte, truncated bool) bodyKind {
	if len(data) == 0 {
		return kindEmpty
	}
	textual := utf8.Valid(trimPartialRune(data, truncated)) && bytes.IndexByte(data, 0) < 0
	switch {
	case isJSONType(mediaType):
		if textual {
			return kindJSON
		}
		return kindBinary
	case mediaType == "":
		if !textual {
			return kindBinary
		}
		if c := firstNonSpace(data); c == '{' || c == '[' {
			return kindJSON
		}
		return kindText
	case isTextType(mediaType):
		if textual {
			return kindText
		}
		return kindBinary
	}
	return kindBinary
}

func isJSONType(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "text/json"
}

func isTextType(mt string) bool {
	switch {
	case strings.HasPrefix(mt, "text/"), strings.HasSuffix(mt, "+xml"):
		return true
	}
	switch mt {
	case "application/xml", "application/javascript", "application/ecmascript", "application/x-www-form-urlencoded",
		"application/x-ndjson", "application/jsonl", "application/yaml", "application/x-yaml", "application/toml",
		"application/graphql", "application/sql", "image/svg+xml":
		return true
	}
	return false
}

func firstNonSpace(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of a truncated body.
func trimPartialRune(b []byte, truncated bool) []byte {
	if !truncated {
		return b
	}
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		r, size := utf8.DecodeLastRune(b[:len(b)-i+1])
		if r != utf8.RuneError || size > 1 {
			return b[:len(b)-i+1]
		}
	}
	return b
}

func mediaTypeOf(resp *http.Response) string {
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
	}
	return mt
}

// respond turns a response into a tool result.
func (b *Backend) respond(ctx context.Context, t *tool, args map[string]any, display string, resp *http.Response, data []byte, truncated bool) *mcp.CallToolResult {
	status := fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	mt := mediaTypeOf(resp)
	if truncated {
		data = b.scrub.cutPartial(trimPartialRune(data, true))
	}
	kind := classify(mt, data, truncated)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return b.statusError(t, display, status, resp, mt, kind, data)
	}
	if kind == kindEmpty && t.response == nil {
		return backend.TextResult(fmt.Sprintf("%s: %s succeeded and returned no body.", status, display))
	}
	if kind == kindBinary {
		return b.binaryResult(t, display, status, resp, mt, data, truncated)
	}
	note := ""
	if truncated {
		note = fmt.Sprintf("\n[truncated: the response is longer than max_output (%d bytes); raise max_output on the tool to see all of it]", t.maxOutput)
	}
	if kind == kindJSON && !truncated && t.response == nil && b.scrub.sc == nil {
		if raw, ok := rawObject(data); ok {
			// Passed on as it came: no parse into a map and encode again per call.
			return &mcp.CallToolResult{
				Content:           []mcp.Content{&mcp.TextContent{Text: string(data)}},
				StructuredContent: raw,
			}
		}
	}
	var body any
	isJSON := false
	if kind == kindJSON && !truncated {
		if v, err := parseJSON(data); err == nil {
			body, isJSON = v, true
		}
	}
	if !isJSON && kind != kindEmpty {
		body = string(data)
	}
	if t.response != nil {
		if truncated {
			return backend.ErrorResult("%s: the response is longer than max_output (%d bytes), so the response expression cannot shape it; raise max_output on the tool", display, t.maxOutput)
		}
		shaped, err := t.response.Eval(ctx, map[string]any{"args": args, "response": map[string]any{
			"status": resp.StatusCode, "headers": headerVars(resp.Header), "body": body,
		}}, exprLimits)
		if err != nil {
			return b.failure(exprFailure("response.expression", err))
		}
		return b.valueResult(t, shaped)
	}
	if isJSON {
		res := &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: b.scrub.String(string(data))}},
			StructuredContent: asObject(b.scrub.Value(body)),
		}
		return res
	}
	return backend.TextResult(b.scrub.String(string(data)) + note)
}

// valueResult returns a shaped value: a string as text; anything else as structured content
// (an object, or {"result": value}) plus its JSON text, cut at max_output.
func (b *Backend) valueResult(t *tool, v any) *mcp.CallToolResult {
	v = b.scrub.Value(v)
	if s, ok := v.(string); ok {
		return backend.TextResult(cutText(s, t.maxOutput))
	}
	if v == nil {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "null"}}, StructuredContent: asObject(nil)}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return backend.ErrorResult("response.expression: the result cannot be encoded as JSON: %v", err)
	}
	text := strings.TrimSuffix(buf.String(), "\n")
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: cutText(text, t.maxOutput)}},
		StructuredContent: asObject(v),
	}
}

// asObject wraps a value that is not a JSON object as {"result": value}: MCP's
// structuredContent must be an object.
func asObject(v any) any {
	switch v.(type) {
	case map[string]any, *jsvalue.Object:
		return v
	}
	return map[string]any{"result": v}
}

func cutText(s string, max int64) string {
	if int64(len(s)) <= max {
		return s
	}
	cut := []byte(s[:max])
	cut = trimPartialRune(cut, true)
	return string(cut) + fmt.Sprintf("\n[truncated: the result is longer than max_output (%d bytes)]", max)
}

// rawObject returns data as structured content without decoding it, when it is one valid
// JSON object: the result is encoded with the upstream's own key order and numbers.
func rawObject(data []byte) (json.RawMessage, bool) {
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return nil, false
	}
	return json.RawMessage(t), true
}

// parseJSON parses one JSON value, keeping numbers exact.
func parseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// headerVars gives response headers to expressions: lower-case names, values joined by ", ".
func headerVars(h http.Header) map[string]any {
	out := make(map[string]any, len(h))
	for k, vs := range h {
		out[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	return out
}

// binaryResult returns a binary body: image/* as image content, audio/* as audio content,
// anything else as an embedded resource blob, each with a short text saying what it is. A
// body without a type, or typed application/octet-stream, is sniffed.
func (b *Backend) binaryResult(t *tool, display, status string, resp *http.Response, mt string, data []byte, truncated bool) *mcp.CallToolResult {
	if mt == "" || mt == "application/octet-stream" {
		mt = backend.SniffMediaType(data) // with the audio formats DetectContentType misses
	}
	if truncated {
		return backend.ErrorResult("%s: the response is binary (%s) and longer than max_output (%d bytes), so it cannot be returned; raise max_output on the tool", display, mt, t.maxOutput)
	}
	caption := &mcp.TextContent{Text: fmt.Sprintf("%s: %s returned %d bytes of %s.", status, display, len(data), mt)}
	if strings.HasPrefix(mt, "image/") {
		return &mcp.CallToolResult{Content: []mcp.Content{caption, &mcp.ImageContent{Data: data, MIMEType: mt}}}
	}
	if strings.HasPrefix(mt, "audio/") {
		return &mcp.CallToolResult{Content: []mcp.Content{caption, &mcp.AudioContent{Data: data, MIMEType: mt}}}
	}
	uri := *resp.Request.URL
	uri.User, uri.RawQuery, uri.ForceQuery, uri.Fragment = nil, "", false, ""
	return &mcp.CallToolResult{Content: []mcp.Content{caption, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
		URI: b.scrub.String(uri.String()), MIMEType: mt, Blob: data,
	}}}}
}

// statusError describes a non-2xx response: method, path, status, a hint and a body excerpt.
func (b *Backend) statusError(t *tool, display, status string, resp *http.Response, mt string, kind bodyKind, data []byte) *mcp.CallToolResult {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s failed: %s.", display, status)
	if h := statusHint(resp); h != "" {
		sb.WriteString(" ")
		sb.WriteString(h)
	}
	switch kind {
	case kindEmpty:
		sb.WriteString("\nThe response body is empty.")
	case kindBinary:
		fmt.Fprintf(&sb, "\nThe response body is %d bytes of %s (not shown).", len(data), orUnknown(mt))
	default:
		text := b.scrub.String(string(data))
		ex := text
		if len(ex) > ExcerptSize {
			ex = string(trimPartialRune([]byte(ex[:ExcerptSize]), true)) + " …"
		}
		fmt.Fprintf(&sb, "\nResponse body (first %d bytes at most):\n%s", ExcerptSize, ex)
	}
	return backend.ErrorResult("%s", sb.String())
}

func orUnknown(mt string) string {
	if mt == "" {
		return "an unknown type"
	}
	return mt
}

func statusHint(resp *http.Response) string {
	code := resp.StatusCode
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return "The API refused the request's credentials or permissions; the credentials come from the server's configured headers (secrets), not from the arguments."
	case code == http.StatusNotFound:
		return "Check the arguments that name the resource (path parameters)."
	case code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable:
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			return fmt.Sprintf("The API asks to retry after %s (Retry-After).", ra)
		}
		if code == http.StatusTooManyRequests {
			return "The API is rate limiting; retry later."
		}
		return "The API is unavailable; retry later."
	case code >= 500:
		return "The API failed; retrying later may help."
	case code >= 400:
		return "The API rejected the request; check the arguments."
	case code >= 300:
		return "The API answered with a redirect that was not followed."
	}
	return ""
}
