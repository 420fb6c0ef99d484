// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by the license
// that can be found in the LICENSE file.

// mcpbridge: this file is not in the SDK release; see MCPBRIDGE-PATCH.md.

package mcp

import "encoding/json"

// legacyResult returns res as it is sent to a request of a protocol version older than
// 2026-07-28: without the fields that version added to results. resultType (which a
// result a client decoded from a 2026-07-28 server carries on, and which a handler may
// set) is cleared in place; a result with cache-control fields (ttlMs and cacheScope,
// which are not omitempty because the new protocol requires them) is wrapped so that it
// is written without them.
func legacyResult(res Result) Result {
	switch r := res.(type) {
	case *CallToolResult:
		r.resultType = ""
	case *GetPromptResult:
		r.resultType = ""
	case *CompleteResult:
		r.completeResultWithType = completeResultWithType{}
	case *ReadResourceResult:
		r.resultType = ""
		return legacyWire{res}
	case *ListToolsResult:
		r.completeResultWithType = completeResultWithType{}
		return legacyWire{res}
	case *ListPromptsResult:
		r.completeResultWithType = completeResultWithType{}
		return legacyWire{res}
	case *ListResourcesResult:
		r.completeResultWithType = completeResultWithType{}
		return legacyWire{res}
	case *ListResourceTemplatesResult:
		r.completeResultWithType = completeResultWithType{}
		return legacyWire{res}
	}
	return res
}

// legacyWire is a result with cache-control fields, written without them.
type legacyWire struct{ Result }

// noCacheFields shadows the fields of an embedded [Cacheable] (a shallower field of
// the same JSON name wins), so that they are left out.
type noCacheFields struct {
	TTLMs      *int    `json:"ttlMs,omitempty"`
	CacheScope *string `json:"cacheScope,omitempty"`
}

func (w legacyWire) MarshalJSON() ([]byte, error) {
	switch r := w.Result.(type) {
	case *ListToolsResult:
		type res ListToolsResult
		return json.Marshal(struct {
			res
			noCacheFields
		}{res: res(*r)})
	case *ListPromptsResult:
		type res ListPromptsResult
		return json.Marshal(struct {
			res
			noCacheFields
		}{res: res(*r)})
	case *ListResourcesResult:
		type res ListResourcesResult
		return json.Marshal(struct {
			res
			noCacheFields
		}{res: res(*r)})
	case *ListResourceTemplatesResult:
		type res ListResourceTemplatesResult
		return json.Marshal(struct {
			res
			noCacheFields
		}{res: res(*r)})
	case *ReadResourceResult:
		// As ReadResourceResult.MarshalJSON, without resultType and the cache fields.
		type res ReadResourceResult
		w := struct {
			res
			noCacheFields
			InputRequests json.RawMessage `json:"inputRequests,omitempty"` // shadows res.InputRequests
		}{res: res(*r)}
		if r.InputRequests != nil {
			ir, err := json.Marshal(r.InputRequests)
			if err != nil {
				return nil, err
			}
			w.InputRequests = ir
		}
		return json.Marshal(w)
	}
	return json.Marshal(w.Result)
}
