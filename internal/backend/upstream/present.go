package upstream

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

// The upstream sees the downstream client as it declared itself, not the gateway: its
// capabilities decide what the upstream may ask of it (sampling, elicitation, roots), and
// an upstream that is told a capability is missing refuses what needs it
// (MissingRequiredClientCapabilityError), as it would talking to the client directly.
//
// On a 2026-07-28 upstream session every request carries the caller's clientInfo and
// clientCapabilities in its _meta (present). A legacy upstream session declares its
// capabilities once, at initialize: the session of one downstream legacy session
// (isolation: per-session) declares that client's (see newClient); a session shared by
// several callers declares everything the gateway can forward.

// present puts the caller's clientInfo and clientCapabilities into the _meta of a request
// to a 2026-07-28 upstream session (the SDK adds only the keys that are missing). Unknown
// values (an internal call) leave the gateway's own.
func present(m mcp.Meta, client backend.Declared) mcp.Meta {
	info, caps := backend.DeclaredBy(client)
	if info == nil && caps == nil {
		return m
	}
	if m == nil {
		m = mcp.Meta{}
	}
	if info != nil {
		m[mcp.MetaKeyClientInfo] = info
	}
	if caps != nil {
		m[mcp.MetaKeyClientCapabilities] = capabilitiesWire(caps)
	}
	return m
}

// capabilitiesWire is caps as the protocol spells them: roots present only when declared
// (ClientCapabilities.Roots, a struct, would always be written; RootsV2 says whether
// the client has roots).
func capabilitiesWire(caps *mcp.ClientCapabilities) map[string]any {
	b, err := json.Marshal(caps)
	var m map[string]any
	if err != nil || json.Unmarshal(b, &m) != nil || m == nil {
		m = map[string]any{}
	}
	delete(m, "roots")
	if caps.RootsV2 != nil {
		r := map[string]any{}
		if caps.RootsV2.ListChanged {
			r["listChanged"] = true
		}
		m["roots"] = r
	}
	return m
}

// clientOptionsFor sets what the upstream client of c declares at initialize: the
// downstream client's capabilities when the connection serves one legacy session, else
// everything the gateway forwards. The sampling and elicitation handlers only make the
// SDK client declare those capabilities (the receiving middleware forwards the requests
// before a handler runs), so they are set only for what is declared.
func clientOptionsFor(c *conn, opts *mcp.ClientOptions, sampling, elicit func()) {
	caps := c.caps
	if caps == nil {
		opts.Capabilities = &mcp.ClientCapabilities{
			RootsV2:     &mcp.RootCapabilities{},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		}
		sampling()
		elicit()
		return
	}
	cp := *caps
	opts.Capabilities = &cp
	if caps.Sampling != nil {
		sampling()
	}
	if caps.Elicitation != nil {
		elicit()
	}
}
