package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/secret"
)

// Every output of a backend passes through here on its way to a client, whatever the kind
// and whatever the surface (both MCP eras, HTTP+SSE, REST, pages): tool results, resource
// contents, prompts, completions, error texts, progress and log notifications, and the
// requests a backend sends the client (sampling, elicitation). Each is scrubbed of every
// secret the gateway holds (g.secrets: what any server resolved, the MCPBRIDGE_SECRET_*
// values, the admin keys), so a secret one server resolved does not leave through another
// server either. The gateway's log goes through scrubHandler. Kinds scrub their own
// secrets too (at output cuts, where only they know where the cut was); this is the net
// under all of them.

// scrubber returns the scrubber of every secret held now (nil scrubs nothing).
func (g *Gateway) scrubber() *secret.Scrubber { return g.secrets.Scrubber() }

// scrubCall scrubs what a backend's CallTool returned.
func (g *Gateway) scrubCall(res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	sc := g.scrubber()
	if sc == nil {
		return res, err
	}
	return scrubToolResult(sc, res), scrubError(sc, err)
}

// scrubRead scrubs what a resource read returned.
func (g *Gateway) scrubRead(res *mcp.ReadResourceResult, err error) (*mcp.ReadResourceResult, error) {
	sc := g.scrubber()
	if sc == nil || (res == nil && err == nil) {
		return res, err
	}
	if res != nil {
		out := *res
		out.Contents = make([]*mcp.ResourceContents, len(res.Contents))
		for i, c := range res.Contents {
			out.Contents[i] = scrubResourceContents(sc, c)
		}
		out.Meta = scrubMeta(sc, res.Meta)
		res = &out
	}
	return res, scrubError(sc, err)
}

// scrubPrompt scrubs what a prompts/get returned.
func (g *Gateway) scrubPrompt(res *mcp.GetPromptResult, err error) (*mcp.GetPromptResult, error) {
	sc := g.scrubber()
	if sc == nil || (res == nil && err == nil) {
		return res, err
	}
	if res != nil {
		out := *res
		out.Description = sc.String(res.Description)
		out.Messages = make([]*mcp.PromptMessage, len(res.Messages))
		for i, m := range res.Messages {
			if m != nil {
				mm := *m
				mm.Content = scrubContent(sc, m.Content)
				m = &mm
			}
			out.Messages[i] = m
		}
		out.Meta = scrubMeta(sc, res.Meta)
		if res.InputRequests != nil {
			if v, ok := scrubJSON(sc, res.InputRequests); ok {
				out.InputRequests = v
			}
		}
		res = &out
	}
	return res, scrubError(sc, err)
}

// maxCompletionValues is the most values a completion/complete result may carry (the
// protocol's bound); a backend's longer list is cut, with hasMore set and total kept.
const maxCompletionValues = 100

// scrubCompletion bounds and scrubs what a completion/complete returned.
func (g *Gateway) scrubCompletion(res *mcp.CompleteResult, err error) (*mcp.CompleteResult, error) {
	if res != nil && len(res.Completion.Values) > maxCompletionValues {
		out := *res
		out.Completion.Total = max(res.Completion.Total, len(res.Completion.Values))
		out.Completion.Values = res.Completion.Values[:maxCompletionValues]
		out.Completion.HasMore = true
		res = &out
	}
	sc := g.scrubber()
	if sc == nil || (res == nil && err == nil) {
		return res, err
	}
	if res != nil {
		out := *res
		out.Completion.Values = make([]string, len(res.Completion.Values))
		for i, v := range res.Completion.Values {
			out.Completion.Values[i] = sc.String(v)
		}
		out.Meta = scrubMeta(sc, res.Meta)
		res = &out
	}
	return res, scrubError(sc, err)
}

// scrubToolResult returns r scrubbed: r itself when nothing changed, else a copy.
func scrubToolResult(sc *secret.Scrubber, r *mcp.CallToolResult) *mcp.CallToolResult {
	if r == nil {
		return nil
	}
	out := *r
	out.Content = make([]mcp.Content, len(r.Content))
	for i, c := range r.Content {
		out.Content[i] = scrubContent(sc, c)
	}
	if r.StructuredContent != nil {
		if v, ok := scrubJSON(sc, r.StructuredContent); ok {
			out.StructuredContent = v
		}
	}
	out.Meta = scrubMeta(sc, r.Meta)
	if r.InputRequests != nil {
		if v, ok := scrubJSON(sc, r.InputRequests); ok {
			out.InputRequests = v
		}
	}
	return &out
}

// scrubContent returns c scrubbed: c itself when nothing changed, else a copy.
func scrubContent(sc *secret.Scrubber, c mcp.Content) mcp.Content {
	switch c := c.(type) {
	case *mcp.TextContent:
		if t := sc.String(c.Text); t != c.Text || c.Meta != nil {
			cc := *c
			cc.Text, cc.Meta = t, scrubMeta(sc, c.Meta)
			return &cc
		}
	case *mcp.ImageContent:
		cc := *c
		cc.Data, cc.Meta = sc.Bytes(c.Data), scrubMeta(sc, c.Meta)
		return &cc
	case *mcp.AudioContent:
		cc := *c
		cc.Data, cc.Meta = sc.Bytes(c.Data), scrubMeta(sc, c.Meta)
		return &cc
	case *mcp.EmbeddedResource:
		cc := *c
		cc.Resource, cc.Meta = scrubResourceContents(sc, c.Resource), scrubMeta(sc, c.Meta)
		return &cc
	case *mcp.ResourceLink:
		cc := *c
		cc.URI, cc.Name, cc.Title, cc.Description = sc.String(c.URI), sc.String(c.Name), sc.String(c.Title), sc.String(c.Description)
		cc.Meta = scrubMeta(sc, c.Meta)
		return &cc
	case nil:
		return nil
	default:
		// A content type this gateway does not know: through its JSON.
		if v, ok := scrubJSON(sc, c); ok {
			if v == nil {
				return &mcp.TextContent{Text: "[content withheld: it held a secret]"}
			}
			return v
		}
	}
	return c
}

func scrubResourceContents(sc *secret.Scrubber, rc *mcp.ResourceContents) *mcp.ResourceContents {
	if rc == nil {
		return nil
	}
	out := *rc
	out.URI, out.Text, out.Blob = sc.String(rc.URI), sc.String(rc.Text), sc.Bytes(rc.Blob)
	out.Meta = scrubMeta(sc, rc.Meta)
	return &out
}

func scrubMeta(sc *secret.Scrubber, m mcp.Meta) mcp.Meta {
	if m == nil {
		return nil
	}
	if v, ok := scrubJSON(sc, m); ok {
		return v
	}
	return m
}

// scrubJSON scrubs v through its JSON text, decoding the scrubbed text into a new value of
// v's type. It reports false when nothing changed (or v cannot go through JSON, which no
// value decoded from a message does).
func scrubJSON[T any](sc *secret.Scrubber, v T) (T, bool) {
	var zero T
	data, err := json.Marshal(v)
	if err != nil {
		return zero, false
	}
	s := sc.String(string(data))
	if s == string(data) {
		return zero, false
	}
	var out T
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		// A placeholder cannot break JSON (it holds no quote or backslash that is not
		// escaped where the secret was), but a type that does not decode what it encodes
		// can: rather nothing than the secret.
		return zero, true
	}
	return out, true
}

// scrubError scrubs an error's text: a *jsonrpc.Error keeps its code (its data is scrubbed
// too); another error whose text held a secret says the scrubbed text and unwraps to it.
func scrubError(sc *secret.Scrubber, err error) error {
	if err == nil || sc == nil {
		return err
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		msg := sc.String(je.Message)
		var data json.RawMessage
		if len(je.Data) > 0 {
			data = json.RawMessage(sc.String(string(je.Data)))
			if !json.Valid(data) {
				data = nil
			}
		}
		if msg == je.Message && string(data) == string(je.Data) && err.Error() == sc.String(err.Error()) {
			return err
		}
		return &jsonrpc.Error{Code: je.Code, Message: msg, Data: data}
	}
	if s := sc.String(err.Error()); s != err.Error() {
		return scrubbedError{msg: s, err: err}
	}
	return err
}

// scrubbedError is an error whose text held a secret: it says the scrubbed text and still
// unwraps to the error (errors.Is(err, store.ErrUnavailable) keeps working).
type scrubbedError struct {
	msg string
	err error
}

func (e scrubbedError) Error() string { return e.msg }
func (e scrubbedError) Unwrap() error { return e.err }

// scrubSession is a backend's handle on a client session whose notifications and requests
// are scrubbed on their way to the client.
type scrubSession struct {
	backend.Session
	g *Gateway
}

// scrubbedSession returns s behind the gateway's scrubber.
func (g *Gateway) scrubbedSession(s backend.Session) backend.Session {
	if _, none := s.(backend.NoSession); none {
		return s
	}
	return scrubSession{Session: s, g: g}
}

func (s scrubSession) Progress(ctx context.Context, progress, total float64, message string) {
	s.Session.Progress(ctx, progress, total, s.g.scrubber().String(message))
}

func (s scrubSession) Log(ctx context.Context, p *mcp.LoggingMessageParams) error {
	if sc := s.g.scrubber(); sc != nil && p != nil {
		q := *p
		q.Logger = sc.String(p.Logger)
		if p.Data != nil {
			if v, ok := scrubJSON(sc, p.Data); ok {
				q.Data = v
			}
		}
		q.Meta = scrubMeta(sc, p.Meta)
		p = &q
	}
	return s.Session.Log(ctx, p)
}

func (s scrubSession) CreateMessage(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	if sc := s.g.scrubber(); sc != nil && p != nil {
		if v, ok := scrubJSON(sc, p); ok {
			if v == nil {
				return nil, errors.New("the request to the client could not be scrubbed of secrets and was not sent")
			}
			p = v
		}
	}
	return s.Session.CreateMessage(ctx, p)
}

func (s scrubSession) Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if sc := s.g.scrubber(); sc != nil && p != nil {
		if v, ok := scrubJSON(sc, p); ok {
			if v == nil {
				return nil, errors.New("the request to the client could not be scrubbed of secrets and was not sent")
			}
			p = v
		}
	}
	return s.Session.Elicit(ctx, p)
}

// scrubHandler is a slog.Handler that scrubs the message and attribute values of every
// record of the gateway's log (and of every backend's, which derives from it) before the
// handler it wraps sees them.
type scrubHandler struct {
	h   slog.Handler
	set *secret.Set
}

func (s scrubHandler) Enabled(ctx context.Context, l slog.Level) bool { return s.h.Enabled(ctx, l) }

func (s scrubHandler) Handle(ctx context.Context, r slog.Record) error {
	sc := s.set.Scrubber()
	if sc == nil {
		return s.h.Handle(ctx, r)
	}
	out := slog.NewRecord(r.Time, r.Level, sc.String(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(scrubAttr(sc, a))
		return true
	})
	return s.h.Handle(ctx, out)
}

func (s scrubHandler) WithAttrs(as []slog.Attr) slog.Handler {
	if sc := s.set.Scrubber(); sc != nil {
		out := make([]slog.Attr, len(as))
		for i, a := range as {
			out[i] = scrubAttr(sc, a)
		}
		as = out
	}
	return scrubHandler{h: s.h.WithAttrs(as), set: s.set}
}

func (s scrubHandler) WithGroup(name string) slog.Handler {
	return scrubHandler{h: s.h.WithGroup(name), set: s.set}
}

func scrubAttr(sc *secret.Scrubber, a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, sc.String(v.String()))
	case slog.KindGroup:
		g := v.Group()
		out := make([]slog.Attr, len(g))
		for i, x := range g {
			out[i] = scrubAttr(sc, x)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
	case slog.KindAny:
		var text string
		switch x := v.Any().(type) {
		case error:
			text = x.Error()
		case fmt.Stringer:
			text = x.String()
		case []byte:
			text = string(x)
		default:
			data, err := json.Marshal(x)
			if err != nil {
				text = fmt.Sprint(x)
			} else {
				text = string(data)
			}
		}
		if s := sc.String(text); s != text {
			return slog.String(a.Key, s)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
