package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

// callSession is the backend's handle on the MCP session of one tool call.
type callSession struct {
	ss    *mcp.ServerSession
	token any // the call's progress token; nil when the client asked for none
}

func newCallSession(req *mcp.CallToolRequest) backend.Session {
	if req == nil || req.Session == nil {
		return backend.NoSession{}
	}
	var tok any
	if req.Params != nil {
		tok = req.Params.GetProgressToken()
	}
	return &callSession{ss: req.Session, token: tok}
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
	return &callSession{ss: req.Session, token: tok}
}

func (s *callSession) ID() string { return s.ss.ID() }

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
