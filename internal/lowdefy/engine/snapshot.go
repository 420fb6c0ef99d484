package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// Snapshot is an engine's plain data: everything needed to rebuild it in a
// fresh engine for the same app. It marshals to JSON with encoding/json;
// values are Lowdefy-serialized (dates as {"~d": ms}, key order kept).
type Snapshot struct {
	CurrentPage string   `json:"currentPage"`
	Visited     []string `json:"visited"`
	History     []string `json:"history"`
	// HistoryQueries is the URL query of each history entry, for Link back (absent in
	// snapshots saved before it was kept).
	HistoryQueries []string                `json:"historyQueries,omitempty"`
	Global         json.RawMessage         `json:"global"`
	Inputs         json.RawMessage         `json:"inputs"`
	URLQuery       string                  `json:"urlQuery"`
	APIResponses   json.RawMessage         `json:"apiResponses"`
	Journal        json.RawMessage         `json:"journal"`
	Pages          map[string]PageSnapshot `json:"pages"`
}

// PageSnapshot is one page context's plain data.
type PageSnapshot struct {
	State           json.RawMessage `json:"state"`
	Frozen          *string         `json:"frozen"`
	Requests        json.RawMessage `json:"requests"`
	EventLog        json.RawMessage `json:"eventLog"`
	OnInitDone      bool            `json:"onInitDone"`
	OnInitAsyncDone bool            `json:"onInitAsyncDone"`
	// Blocks holds per-block data that state does not: whether validation is
	// shown, modal open state, switched tabs and panels, closed alerts and
	// tags, list item counts and the values of inputs
	// whose state value was removed (hidden inputs keep their value).
	Blocks json.RawMessage `json:"blocks"`
	// Order is the order of the block map (the order validation is reported in).
	Order []string `json:"order"`
}

func marshal(v any) (json.RawMessage, error) {
	b, err := serial.Marshal(v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Save extracts the engine's plain data.
func (e *Engine) Save() (*Snapshot, error) {
	s := &Snapshot{
		Visited:        append([]string{}, e.visited...),
		History:        append([]string{}, e.history...),
		HistoryQueries: append([]string(nil), e.historySearch...),
		URLQuery:       e.search,
		Pages:          map[string]PageSnapshot{},
	}
	if e.cur != nil {
		s.CurrentPage = e.cur.id
	}
	inputs := jsvalue.NewObject(len(e.inputs))
	for _, k := range slices.Sorted(maps.Keys(e.inputs)) {
		inputs.Set(k, e.inputs[k])
	}
	journal := make([]any, len(e.journal))
	for i, j := range e.journal {
		journal[i] = j
	}
	var err error
	for _, f := range []struct {
		dst *json.RawMessage
		v   any
	}{{&s.Global, e.global}, {&s.Inputs, inputs}, {&s.APIResponses, e.apiResponses}, {&s.Journal, journal}} {
		if *f.dst, err = marshal(f.v); err != nil {
			return nil, fmt.Errorf("save engine: %w", err)
		}
	}
	for id, p := range e.pages {
		ps, err := p.save()
		if err != nil {
			return nil, fmt.Errorf("save page %q: %w", id, err)
		}
		s.Pages[id] = ps
	}
	return s, nil
}

func (p *Page) save() (PageSnapshot, error) {
	ps := PageSnapshot{Frozen: p.frozen, OnInitDone: p.onInitDone, OnInitAsyncDone: p.onInitAsyncDone}
	bl := jsvalue.NewObject(0)
	p.root.walk(func(b *block) {
		o := jsvalue.NewObject(0)
		if b.showValidation {
			o.Set("showValidation", true)
		}
		if b.open {
			o.Set("open", true)
		}
		if b.activeKey != nil {
			o.Set("activeKey", b.activeKey)
		}
		if b.closed {
			o.Set("closed", true)
		}
		if b.isList() {
			o.Set("items", float64(len(b.sub)))
		}
		if !b.isVisible() && b.evaluated {
			// Hidden blocks keep their last validation (it is not re-evaluated).
			o.Set("validation", jsvalue.ObjectOf("status", b.validation.status,
				"errors", b.validation.errors, "warnings", b.validation.warnings))
		}
		if b.isInput() && jsvalue.IsUndefined(getPath(p.state, b.blockID)) {
			o.Set("value", b.value)
		}
		if o.Len() > 0 {
			bl.Set(b.blockID, o)
		}
	})
	ps.Order = p.blockMap.Keys()
	var err error
	for _, f := range []struct {
		dst *json.RawMessage
		v   any
	}{{&ps.State, p.state}, {&ps.Requests, p.requests}, {&ps.EventLog, p.eventLog}, {&ps.Blocks, bl}} {
		if *f.dst, err = marshal(f.v); err != nil {
			return ps, err
		}
	}
	return ps, nil
}

func unmarshalObject(raw json.RawMessage) (*jsvalue.Object, error) {
	if len(raw) == 0 {
		return jsvalue.NewObject(0), nil
	}
	v, err := serial.Unmarshal(raw)
	if err != nil {
		return nil, err
	}
	o, _ := v.(*jsvalue.Object)
	if o == nil {
		o = jsvalue.NewObject(0)
	}
	return o, nil
}

// Restore replaces the engine's data with a snapshot saved from an engine
// for the same app. No lifecycle event runs: the pages are as they were.
func (e *Engine) Restore(ctx context.Context, s *Snapshot) error {
	global, err := unmarshalObject(s.Global)
	if err != nil {
		return fmt.Errorf("restore global: %w", err)
	}
	inputs, err := unmarshalObject(s.Inputs)
	if err != nil {
		return fmt.Errorf("restore inputs: %w", err)
	}
	api, err := unmarshalObject(s.APIResponses)
	if err != nil {
		return fmt.Errorf("restore api responses: %w", err)
	}
	var journal []*jsvalue.Object
	if len(s.Journal) > 0 {
		v, err := serial.Unmarshal(s.Journal)
		if err != nil {
			return fmt.Errorf("restore journal: %w", err)
		}
		arr, _ := v.([]any)
		for _, x := range arr {
			if o, ok := x.(*jsvalue.Object); ok {
				journal = append(journal, o)
			}
		}
	}
	e.global, e.apiResponses, e.journal = global, api, journal
	e.inputs = map[string]*jsvalue.Object{}
	for k, v := range inputs.Range {
		if o, ok := v.(*jsvalue.Object); ok {
			e.inputs[k] = o
		}
	}
	e.visited = append([]string(nil), s.Visited...)
	e.history = append([]string(nil), s.History...)
	e.historySearch = nil
	if len(s.HistoryQueries) == len(s.History) {
		e.historySearch = append([]string(nil), s.HistoryQueries...)
	}
	e.search = s.URLQuery
	e.urlQuery = nil
	e.pending = nil
	e.pages = map[string]*Page{}
	e.cur = nil
	for id, ps := range s.Pages {
		cfg := e.app.Page(id)
		if cfg == nil {
			return fmt.Errorf("restore: page %q is not in the app (was the snapshot saved for another app?)", id)
		}
		p, err := restorePage(ctx, e, cfg, ps)
		if err != nil {
			return fmt.Errorf("restore page %q: %w", id, err)
		}
		e.pages[id] = p
	}
	if s.CurrentPage != "" {
		e.cur = e.pages[s.CurrentPage]
		if e.cur == nil {
			return fmt.Errorf("restore: the current page %q has no saved context", s.CurrentPage)
		}
	}
	return nil
}

func restorePage(ctx context.Context, e *Engine, cfg *app.Page, ps PageSnapshot) (*Page, error) {
	state, err := unmarshalObject(ps.State)
	if err != nil {
		return nil, err
	}
	requests, err := unmarshalObject(ps.Requests)
	if err != nil {
		return nil, err
	}
	bl, err := unmarshalObject(ps.Blocks)
	if err != nil {
		return nil, err
	}
	var eventLog []any
	if len(ps.EventLog) > 0 {
		v, err := serial.Unmarshal(ps.EventLog)
		if err != nil {
			return nil, err
		}
		eventLog, _ = v.([]any)
	}
	p := &Page{e: e, id: cfg.ID, cfg: cfg, state: state, requests: requests, eventLog: eventLog,
		frozen: ps.Frozen, onInitDone: ps.OnInitDone, onInitAsyncDone: ps.OnInitAsyncDone}
	p.init()
	// List items without values in state (items of display blocks only).
	for changed := true; changed; {
		changed = false
		p.root.walk(func(b *block) {
			data, _ := bl.Prop(b.blockID).(*jsvalue.Object)
			n, _ := data.Prop("items").(float64)
			for b.isList() && len(b.sub) < int(n) {
				b.sub = append(b.sub, b.set.newSub(b, withIndex(b.set.arrayIndices, len(b.sub)), copyObject(p.state)))
				changed = true
			}
		})
	}
	p.root.walk(func(b *block) {
		data, _ := bl.Prop(b.blockID).(*jsvalue.Object)
		if data == nil {
			return
		}
		b.showValidation = data.Prop("showValidation") == true
		b.open = data.Prop("open") == true
		if k, ok := data.Get("activeKey"); ok {
			b.activeKey = k
		}
		b.closed = data.Prop("closed") == true
		if v, ok := data.Prop("validation").(*jsvalue.Object); ok {
			b.evaluated = true
			b.validation.status = v.Prop("status")
			b.validation.errors, _ = v.Prop("errors").([]any)
			b.validation.warnings, _ = v.Prop("warnings").([]any)
		}
		if v, ok := data.Get("value"); ok && b.isInput() {
			b.value = v
		}
	})
	order := jsvalue.NewObject(p.blockMap.Len())
	for _, id := range ps.Order {
		if v, ok := p.blockMap.Get(id); ok {
			order.Set(id, v)
		}
	}
	for k, v := range p.blockMap.Range {
		if !order.Has(k) {
			order.Set(k, v)
		}
	}
	p.blockMap = order
	p.update(ctx)
	return p, nil
}

// AppendJSON appends the snapshot's JSON to dst and returns the extended
// buffer. It writes what encoding/json writes for s (pages by sorted id),
// but copies the already-encoded values as they are instead of validating
// and compacting them again, so it costs a copy of the bytes. A nil
// snapshot appends null.
func (s *Snapshot) AppendJSON(dst []byte) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"currentPage":`...)
	dst = jsvalue.AppendQuote(dst, s.CurrentPage)
	dst = append(dst, `,"visited":`...)
	dst = appendStrings(dst, s.Visited)
	dst = append(dst, `,"history":`...)
	dst = appendStrings(dst, s.History)
	if len(s.HistoryQueries) > 0 {
		dst = append(dst, `,"historyQueries":`...)
		dst = appendStrings(dst, s.HistoryQueries)
	}
	dst = append(dst, `,"global":`...)
	dst = appendRaw(dst, s.Global)
	dst = append(dst, `,"inputs":`...)
	dst = appendRaw(dst, s.Inputs)
	dst = append(dst, `,"urlQuery":`...)
	dst = jsvalue.AppendQuote(dst, s.URLQuery)
	dst = append(dst, `,"apiResponses":`...)
	dst = appendRaw(dst, s.APIResponses)
	dst = append(dst, `,"journal":`...)
	dst = appendRaw(dst, s.Journal)
	dst = append(dst, `,"pages":`...)
	if s.Pages == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '{')
		for i, id := range slices.Sorted(maps.Keys(s.Pages)) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsvalue.AppendQuote(dst, id)
			dst = append(dst, ':')
			dst = s.Pages[id].appendJSON(dst)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func (ps PageSnapshot) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"state":`...)
	dst = appendRaw(dst, ps.State)
	dst = append(dst, `,"frozen":`...)
	if ps.Frozen == nil {
		dst = append(dst, "null"...)
	} else {
		dst = jsvalue.AppendQuote(dst, *ps.Frozen)
	}
	dst = append(dst, `,"requests":`...)
	dst = appendRaw(dst, ps.Requests)
	dst = append(dst, `,"eventLog":`...)
	dst = appendRaw(dst, ps.EventLog)
	dst = append(dst, `,"onInitDone":`...)
	dst = strconv.AppendBool(dst, ps.OnInitDone)
	dst = append(dst, `,"onInitAsyncDone":`...)
	dst = strconv.AppendBool(dst, ps.OnInitAsyncDone)
	dst = append(dst, `,"blocks":`...)
	dst = appendRaw(dst, ps.Blocks)
	dst = append(dst, `,"order":`...)
	dst = appendStrings(dst, ps.Order)
	return append(dst, '}')
}

// appendRaw appends an encoded value; empty is null, as encoding/json writes
// an empty json.RawMessage.
func appendRaw(dst []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, raw...)
}

func appendStrings(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsvalue.AppendQuote(dst, s)
	}
	return append(dst, ']')
}
