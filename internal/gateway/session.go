package gateway

import (
	"context"
	"crypto/rand"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

// localIDs holds the ids the gateway gives legacy sessions whose transport has none
// (HTTP+SSE, stdio), by session, while the session lasts.
var localIDs sync.Map // *mcp.ServerSession -> string

// sessionID returns the id backends know the session ss by: its transport's (a Streamable
// HTTP session's Mcp-Session-Id), or, for a legacy session whose transport has none
// (HTTP+SSE, stdio), one the gateway gives it for as long as it lasts. It is "" only for a
// stateless (2026-07-28) request: backends treat "" as a caller with no session to send
// requests to, and a legacy client has one whatever its transport.
func sessionID(ss *mcp.ServerSession) string {
	if id := ss.ID(); id != "" {
		return id
	}
	p := ss.InitializeParams()
	if p == nil || p.ProtocolVersion >= modernVersion {
		return ""
	}
	if v, ok := localIDs.Load(ss); ok {
		return v.(string)
	}
	v, loaded := localIDs.LoadOrStore(ss, "local-"+rand.Text())
	if !loaded {
		go func() {
			_ = ss.Wait()
			localIDs.Delete(ss)
		}()
	}
	return v.(string)
}

// callSession is the backend's handle on the MCP session of one tool call.
type callSession struct {
	ss    *mcp.ServerSession
	id    string // see sessionID
	token any    // the call's progress token; nil when the client asked for none
}

func newCallSession(req *mcp.CallToolRequest) backend.Session {
	if req == nil || req.Session == nil {
		return backend.NoSession{}
	}
	var tok any
	if req.Params != nil {
		tok = req.Params.GetProgressToken()
	}
	return &callSession{ss: req.Session, id: sessionID(req.Session), token: tok}
}

// newPromptSession is the backend's handle on the MCP session of a prompts/get.
func newPromptSession(req *mcp.GetPromptRequest) backend.Session {
	if req == nil || req.Session == nil {
		return backend.NoSession{}
	}
	var tok any
	if req.Params != nil {
		tok = req.Params.GetProgressToken()
	}
	return &callSession{ss: req.Session, id: sessionID(req.Session), token: tok}
}

func (s *callSession) ID() string { return s.id }

func (s *callSession) Progress(ctx context.Context, progress, total float64, message string) {
	if s.token == nil {
		return
	}
	_ = s.ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: s.token, Progress: progress, Total: total, Message: message})
}

func (s *callSession) Log(ctx context.Context, p *mcp.LoggingMessageParams) error {
	return s.ss.Log(ctx, p)
}

func (s *callSession) CreateMessage(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return s.ss.CreateMessage(ctx, p)
}

func (s *callSession) Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return s.ss.Elicit(ctx, p)
}

func (s *callSession) ListRoots(ctx context.Context) (*mcp.ListRootsResult, error) {
	return s.ss.ListRoots(ctx, &mcp.ListRootsParams{})
}
