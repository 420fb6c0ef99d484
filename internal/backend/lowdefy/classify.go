package lowdefy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/blocks"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/all"
)

// The classification of seed 000 (classifyPage), made precise. It reads only the loaded
// app: nothing runs. docs/lowdefy-mcp.md states the same rules for app authors.
//
//   - excluded: the 404 page, and a page whose root block says mcp: {exclude: true}.
//   - form (seed: action_form): the page has input blocks and at least one submit button:
//     a Button whose onClick chain, or a Modal whose onOk chain, runs a Request action
//     naming a request that writes, or a CallAPI action (an Icon or a list row that writes
//     is not a submit). Each submit button becomes a tool; its inputs are those its chain
//     reads (chainReads: _state in its actions and in the payloads of the requests it
//     calls, and what its Validate checks), or, when it reads the whole state, those of the
//     innermost container (or the page) that holds the button and an input. A state key
//     the chain reads that no input holds and a list row's SetState sets is the record
//     the form works on: an argument too (recordKeys).
//   - query (seed: query_display): the page has no input blocks, its lifecycle events
//     (onInit, onInitAsync, onMount, onMountAsync of any block) run at least one request,
//     every one of them only reads, and a block shows request data (_request in its
//     properties). It becomes a resource.
//   - other: anything else (seed: mixed, or a static page). Agents use it through the
//     work-session tools.
//
// Blocks under a block whose visible is the literal false, or whose mcp says exclude: true,
// are left out of all of this, as are blocks inside list items (their ids hold "$").

// pageKind is what a page becomes.
type pageKind string

const (
	kindForm     pageKind = "form"
	kindQuery    pageKind = "query"
	kindOther    pageKind = "other"
	kindExcluded pageKind = "excluded"
)

// pageClass is the classification of one page.
type pageClass struct {
	Page *app.Page
	Kind pageKind
	// Why says which rule decided, in a few words.
	Why string
	// Forms are the page's submit buttons with their inputs (kind form).
	Forms []*formSpec
	// Reads are the requests its lifecycle events run (kind query).
	Reads []string
}

// formSpec is one submit button of a form page and the inputs it submits.
type formSpec struct {
	Page *app.Page
	// Button is the submit button's block id, ButtonConfig its built block, Event the
	// event that submits (onClick of a Button, onOk of a Modal).
	Button       string
	ButtonConfig *jsvalue.Object
	Event        string
	// Writes are the writing requests its onClick runs, Endpoints the endpoints it calls.
	Writes    []string
	Endpoints []string
	// Fields are the inputs, in block order.
	Fields []*field
	// URLQuery and Input are the keys of _url_query and _input the page reads (nil: none;
	// ["*"]: the whole object).
	URLQuery, Input []string
	// URLQueryNeeded are the _url_query keys the submit chain itself reads (in its actions
	// or its requests' payloads): the record the form writes to, so required arguments.
	URLQueryNeeded []string
	// Records are the state keys the chain reads that a row of a list sets (the record
	// the form works on, which a person picks by clicking its row): each is an argument.
	Records []*recordKey
}

// recordKey is a state path the submit chain reads that no input holds and that a block's
// event elsewhere on the page sets with SetState (a list row's click, typically): the
// record the form works on, such as edit_product._id.
type recordKey struct {
	// Path is the state path the chain reads ("edit_product._id").
	Path string
	// Set is the key the row's SetState sets ("edit_product"), Path or above it.
	Set string
	// List is the state path of the list whose item the SetState copies
	// ({_state: product_list.$} → "product_list"), Item the path inside the item
	// ("" for the item itself); List is "" when the value comes from elsewhere.
	List, Item string
	// Source names the block and event that set it ("product_list.$.container onClick").
	Source string
}

// describe says what a record argument is, for its schema.
func (r *recordKey) describe() string {
	if r.List != "" {
		what := "a row"
		if rest := strings.TrimPrefix(strings.TrimPrefix(r.Item+"."+r.rest(), "."), "."); strings.Trim(rest, ".") != "" {
			what = "the " + strings.Trim(rest, ".") + " of a row"
		}
		return fmt.Sprintf("The record to work on: %s of list %s (its values fill the form, as a click on the row does: %s); the arguments you give replace them.", what, r.List, r.Source)
	}
	return fmt.Sprintf("The record to work on (on the page it is set by %s).", r.Source)
}

// rest is Path below Set ("_id"), "" when they are equal.
func (r *recordKey) rest() string {
	if r.Path == r.Set {
		return ""
	}
	return strings.TrimPrefix(r.Path, r.Set+".")
}

// field is one argument of a form tool: an input block, or a list block whose items hold
// inputs.
type field struct {
	// ID is the block id: the state path the value goes to, the argument's dotted path.
	ID   string
	Type string
	// List is set for list blocks (their value is set with SetState, not SetValue).
	List bool
	// Required is set when the block is required whatever the state (required: true or a
	// message, and always visible).
	Required bool
	// Schema is the argument's JSON Schema.
	Schema *jsvalue.Object
}

// node is one block of a page as the classifier sees it.
type node struct {
	cfg    *jsvalue.Object
	id     string
	typ    string
	meta   blocks.Meta
	parent *node
	// dependsOn lists the state keys the visibility of the block (or of a container
	// above it) reads; conditional is set when any visible above or on it is an operator.
	conditional bool
	dependsOn   []string
	// items are the input blocks inside a list block's items.
	items []*node
	// tz is the app's time zone (date blocks' schemas name it).
	tz string
}

func (n *node) input() bool { return n.meta.Category == blocks.Input }

// listInput reports whether n is a list block whose items hold inputs.
func (n *node) listInput() bool { return n.meta.Category == blocks.List && len(n.items) > 0 }

// under reports whether n is a descendant of (or is) a.
func (n *node) under(a *node) bool {
	for x := n; x != nil; x = x.parent {
		if x == a {
			return true
		}
	}
	return false
}

// metaOf is the block table's entry for a type (unknown types as the engine guesses).
func metaOf(typ string, cfg *jsvalue.Object) blocks.Meta {
	if m, ok := blocks.Lookup(typ); ok {
		return m
	}
	_, hasAreas := cfg.Prop("areas").(*jsvalue.Object)
	return blocks.Guess(typ, hasAreas)
}

// mcpAnnotation returns a block's (or endpoint's) mcp object, or nil.
func mcpAnnotation(cfg *jsvalue.Object) *jsvalue.Object {
	o, _ := cfg.Prop("mcp").(*jsvalue.Object)
	return o
}

// excluded reports whether a block says mcp: {exclude: true}.
func excluded(cfg *jsvalue.Object) bool { return mcpAnnotation(cfg).Prop("exclude") == true }

// walkPage returns the page's blocks (the root first), in block order, leaving out what
// is hidden for good (visible: false), excluded, or inside list items.
func walkPage(p *app.Page) []*node {
	root := &node{cfg: p.Config, id: p.ID, typ: p.Type, meta: metaOf(p.Type, p.Config)}
	out := []*node{root}
	var walk func(parent *node, list *node)
	walk = func(parent *node, list *node) {
		for cfg := range app.ChildBlocks(parent.cfg) {
			vis := cfg.Prop("visible")
			if vis == false || excluded(cfg) {
				continue
			}
			typ, _ := cfg.Prop("type").(string)
			id, _ := cfg.Prop("blockId").(string)
			n := &node{cfg: cfg, id: id, typ: typ, meta: metaOf(typ, cfg), parent: parent,
				conditional: parent.conditional, dependsOn: parent.dependsOn}
			if !jsvalue.IsUndefined(vis) && vis != true {
				n.conditional = true
				n.dependsOn = appendUnique(slices.Clone(parent.dependsOn), stateKeys(vis)...)
			}
			switch {
			case list != nil:
				// Inside a list item: only its inputs matter, as the list's item fields.
				if n.input() {
					list.items = append(list.items, n)
				}
				walk(n, list)
			case n.meta.Category == blocks.List:
				out = append(out, n)
				walk(n, n)
			default:
				out = append(out, n)
				walk(n, nil)
			}
		}
	}
	walk(root, nil)
	return out
}

// stateKeys are the first path segments of the _state operators in v.
func stateKeys(v any) []string {
	var out []string
	eachOperator(v, func(op string, params any) {
		if op != "_state" {
			return
		}
		key := paramKey(params)
		if key == "" {
			return
		}
		out = appendUnique(out, key)
	})
	return out
}

// paramKey is the key a getter operator reads: its string params or params.key.
func paramKey(params any) string {
	switch p := params.(type) {
	case string:
		return p
	case *jsvalue.Object:
		if k, ok := p.Prop("key").(string); ok {
			return k
		}
	case bool:
		if p {
			return "*"
		}
	}
	return ""
}

// eachOperator calls fn for every operator object ({_name: params}, one key) in v.
func eachOperator(v any, fn func(op string, params any)) {
	switch x := v.(type) {
	case *jsvalue.Object:
		if op, ok := operatorOf(x); ok {
			fn(op, x.Prop(x.Keys()[0]))
		}
		for _, c := range x.Range {
			eachOperator(c, fn)
		}
	case []any:
		for _, c := range x {
			eachOperator(c, fn)
		}
	}
}

// operatorOf returns the operator name of an operator object (_string.concat → _string).
func operatorOf(o *jsvalue.Object) (string, bool) {
	keys := o.Keys()
	if i := slices.Index(keys, "~k"); i >= 0 {
		keys = slices.Delete(slices.Clone(keys), i, i+1)
	}
	if len(keys) != 1 || !strings.HasPrefix(keys[0], "_") || len(keys[0]) < 2 {
		return "", false
	}
	op, _, _ := strings.Cut(keys[0], ".")
	return op, true
}

// static reports whether v holds no operator.
func static(v any) bool {
	found := false
	eachOperator(v, func(string, any) { found = true })
	return !found
}

func appendUnique(list []string, xs ...string) []string {
	for _, x := range xs {
		if !slices.Contains(list, x) {
			list = append(list, x)
		}
	}
	return list
}

// lifecycleEvents are the events a page runs when it opens.
var lifecycleEvents = []string{"onInit", "onInitAsync", "onMount", "onMountAsync"}

// chain returns the actions of an event ({try, catch} as built; try first).
func chain(cfg *jsvalue.Object, event string) []*jsvalue.Object {
	events, _ := cfg.Prop("events").(*jsvalue.Object)
	ev := events.Prop(event)
	var list []any
	switch e := ev.(type) {
	case []any:
		list = e
	case *jsvalue.Object:
		list, _ = e.Prop("try").([]any)
		c, _ := e.Prop("catch").([]any)
		list = append(slices.Clone(list), c...)
	}
	var out []*jsvalue.Object
	for _, a := range list {
		if o, ok := a.(*jsvalue.Object); ok {
			out = append(out, o)
		}
	}
	return out
}

// requestIDs returns the request ids a Request action's params name: a string, a list,
// or {all: true} (every request of the page). ok is false when they are computed.
func requestIDs(p *app.Page, params any) (ids []string, ok bool) {
	switch x := params.(type) {
	case string:
		return []string{x}, true
	case []any:
		for _, v := range x {
			s, isStr := v.(string)
			if !isStr {
				return nil, false
			}
			ids = append(ids, s)
		}
		return ids, true
	case *jsvalue.Object:
		if x.Prop("all") == true && x.Len() == 1 {
			for _, r := range p.Requests {
				ids = append(ids, r.ID)
			}
			return ids, true
		}
	}
	return nil, false
}

// connectionTypes are the connection types whose request types say whether they write,
// built on first use.
var connectionTypes = lazy.Value[connections.Set]{New: all.Set}

var sqlRead = lazy.Regexp{Expr: `(?is)^\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*(select|with|pragma|explain|show|describe|values)\b`}

// requestWrites reports whether a request changes data. Reading is what can be shown
// statically: a MongoDB request type that checks read access only, a KnexRaw query that
// starts with SELECT, WITH, PRAGMA, EXPLAIN, SHOW, DESCRIBE or VALUES, a KnexBuilder
// without insert, update, delete, truncate, upsert or merge, an AxiosHttp request with
// method GET, HEAD or OPTIONS (or none). Anything else counts as writing.
func requestWrites(a *app.App, r *app.Request) bool {
	if r == nil {
		return true
	}
	props, _ := r.Config.Prop("properties").(*jsvalue.Object)
	switch r.Type {
	case "KnexRaw":
		q, ok := props.Prop("query").(string)
		return !ok || !sqlRead.Get().MatchString(q)
	case "KnexBuilder":
		writes := false
		var look func(v any)
		look = func(v any) {
			switch x := v.(type) {
			case *jsvalue.Object:
				for k, c := range x.Range {
					switch strings.ToLower(k) {
					case "insert", "update", "del", "delete", "truncate", "upsert", "merge", "increment", "decrement":
						writes = true
					}
					look(c)
				}
			case []any:
				for _, c := range x {
					look(c)
				}
			case string:
				switch strings.ToLower(x) {
				case "insert", "update", "del", "delete", "truncate", "upsert", "merge", "increment", "decrement":
					writes = true
				}
			}
		}
		look(props)
		return writes
	case "AxiosHttp":
		m := props.Prop("method")
		if jsvalue.IsUndefined(m) || m == nil {
			return false
		}
		s, ok := m.(string)
		if !ok {
			return true
		}
		switch strings.ToLower(s) {
		case "get", "head", "options":
			return false
		}
		return true
	}
	conn := a.Connection(r.ConnectionID)
	if conn == nil {
		return true
	}
	if _, rt, err := connectionTypes.Get().Lookup(conn.Type, r.Type); err == nil && rt.CheckRead && !rt.CheckWrite {
		return false
	}
	return true
}

// classifyApp classifies every page of the app, in config order.
func classifyApp(a *app.App) []*pageClass {
	out := make([]*pageClass, 0, len(a.Pages))
	for _, p := range a.Pages {
		out = append(out, classifyPage(a, p))
	}
	return out
}

// classifyPage applies the rules above to one page.
func classifyPage(a *app.App, p *app.Page) *pageClass {
	pc := &pageClass{Page: p}
	if p.ID == "404" {
		pc.Kind, pc.Why = kindExcluded, "the built-in not-found page"
		return pc
	}
	if excluded(p.Config) {
		pc.Kind, pc.Why = kindExcluded, "the page says mcp: {exclude: true}"
		return pc
	}
	nodes := walkPage(p)
	setTimeZone(nodes, a.TimeZone.String())
	var inputs []*node
	for _, n := range nodes {
		if n.input() || n.listInput() {
			inputs = append(inputs, n)
		}
	}
	// Submit buttons: a Button whose onClick chain, or a Modal whose onOk chain, runs a
	// Request action naming a request that writes, or a CallAPI action. An Icon, a Box or a
	// list row that runs a write is not a form's submit.
	for _, n := range nodes {
		if strings.Contains(n.id, "$") {
			continue
		}
		event := ""
		switch n.typ {
		case "Button":
			event = "onClick"
		case "Modal":
			event = "onOk"
		default:
			continue
		}
		acts := chain(n.cfg, event)
		var writes, endpoints []string
		for _, act := range acts {
			switch act.Prop("type") {
			case "Request":
				ids, ok := requestIDs(p, act.Prop("params"))
				if !ok {
					writes = appendUnique(writes, "(computed)")
					continue
				}
				for _, id := range ids {
					if requestWrites(a, p.Request(id)) {
						writes = appendUnique(writes, id)
					}
				}
			case "CallAPI":
				params, _ := act.Prop("params").(*jsvalue.Object)
				id, _ := params.Prop("endpointId").(string)
				endpoints = appendUnique(endpoints, cmpOr(id, "(computed)"))
			}
		}
		if len(writes)+len(endpoints) == 0 {
			continue
		}
		f := &formSpec{Page: p, Button: n.id, ButtonConfig: n.cfg, Event: event, Writes: writes, Endpoints: endpoints}
		reads, deep, all := chainReads(p, acts, inputs)
		if all {
			// The chain reads the whole state (or requests it cannot name): the inputs of
			// the innermost container around the button that holds any (for a Modal: its
			// own).
			start := n.parent
			if event == "onOk" {
				start = n
			}
			for anc := start; anc != nil; anc = anc.parent {
				for _, in := range inputs {
					if in.under(anc) {
						f.Fields = append(f.Fields, fieldOf(in))
					}
				}
				if len(f.Fields) > 0 {
					break
				}
			}
		} else {
			for _, in := range inputs {
				if readsInput(reads, in.id) {
					f.Fields = append(f.Fields, fieldOf(in))
				}
			}
			f.Records = recordKeys(nodes, deep, inputs, n)
		}
		f.URLQueryNeeded = chainURLQuery(p, acts)
		if len(f.Fields) > 0 {
			pc.Forms = append(pc.Forms, f)
		}
	}
	if len(pc.Forms) > 0 {
		uq, in := pageReads(p.Config, "_url_query"), pageReads(p.Config, "_input")
		for _, f := range pc.Forms {
			f.URLQuery, f.Input = uq, in
		}
		pc.Kind = kindForm
		pc.Why = fmt.Sprintf("input blocks and %d submit button(s) that write", len(pc.Forms))
		return pc
	}
	if len(inputs) > 0 {
		pc.Kind, pc.Why = kindOther, "input blocks but no button whose onClick runs a writing Request or a CallAPI"
		return pc
	}
	// A query page?
	var reads []string
	writes := false
	for _, n := range nodes {
		for _, ev := range lifecycleEvents {
			for _, act := range chain(n.cfg, ev) {
				if act.Prop("type") != "Request" {
					continue
				}
				ids, ok := requestIDs(p, act.Prop("params"))
				if !ok {
					writes = true
				}
				for _, id := range ids {
					if requestWrites(a, p.Request(id)) {
						writes = true
					}
					reads = appendUnique(reads, id)
				}
			}
		}
	}
	shows := false
	for _, n := range nodes[1:] {
		eachOperator(n.cfg.Prop("properties"), func(op string, _ any) { shows = shows || op == "_request" })
		if n.meta.Category == blocks.List {
			shows = true // a list shows the rows the lifecycle put in state
		}
	}
	switch {
	case len(reads) == 0:
		pc.Kind, pc.Why = kindOther, "no input blocks and no request when it opens"
	case writes:
		pc.Kind, pc.Why = kindOther, "a request its lifecycle runs may write"
	case !shows:
		pc.Kind, pc.Why = kindOther, "no block shows request data"
	default:
		pc.Kind, pc.Reads = kindQuery, reads
		pc.Why = "no input blocks; reads " + strings.Join(reads, ", ") + " when it opens and shows the data"
	}
	return pc
}

// pageReads are the keys the page reads with a getter operator (_url_query, _input);
// ["*"] when it reads the whole object.
func pageReads(cfg *jsvalue.Object, op string) []string {
	var out []string
	eachOperator(cfg, func(name string, params any) {
		if name != op {
			return
		}
		if k := paramKey(params); k != "" {
			first, _, _ := strings.Cut(k, ".")
			out = appendUnique(out, first)
		}
	})
	if slices.Contains(out, "*") {
		return []string{"*"}
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ---- input schemas ----

// fieldOf builds the argument of an input (or list) block.
func fieldOf(n *node) *field {
	f := &field{ID: n.id, Type: n.typ, List: n.meta.Category == blocks.List}
	if f.List {
		items := jsvalue.ObjectOf("type", "object")
		props := jsvalue.NewObject(len(n.items))
		var req []any
		prefix := n.id + ".$."
		for _, it := range n.items {
			name, ok := strings.CutPrefix(it.id, prefix)
			if !ok || strings.Contains(name, "$") {
				continue // nested lists are not described
			}
			setNested(props, &req, name, blockSchema(it), requiredAlways(it) && !it.conditional, nil)
		}
		items.Set("properties", props)
		if len(req) > 0 {
			items.Set("required", req)
		}
		items.Set("additionalProperties", false)
		s := jsvalue.ObjectOf("type", "array", "items", items)
		if d := describe(n); d != "" {
			s.Set("description", d)
		}
		f.Schema = s
		return f
	}
	f.Schema = blockSchema(n)
	f.Required = requiredAlways(n) && !n.conditional
	return f
}

// requiredAlways reports whether a block's required is true or a message (not computed).
func requiredAlways(n *node) bool {
	switch r := n.cfg.Prop("required").(type) {
	case bool:
		return r
	case string:
		return r != ""
	}
	return false
}

// blockSchema is the JSON Schema of one input block's value: its type from the block
// table's value type (seed 000's blockTypeMap), static options as enum (an AutoComplete's
// options are only suggestions: free text, named in the description), the label as
// description.
func blockSchema(n *node) *jsvalue.Object {
	props, _ := n.cfg.Prop("properties").(*jsvalue.Object)
	s := jsvalue.NewObject(4)
	var enum []any
	var labels []string
	dynamic := ""
	if opts := props.Prop("options"); !jsvalue.IsUndefined(opts) {
		if list, ok := opts.([]any); ok && static(list) {
			for _, o := range list {
				if oo, ok := o.(*jsvalue.Object); ok {
					v := oo.Prop("value")
					enum = append(enum, v)
					if l, ok := oo.Prop("label").(string); ok && l != jsvalue.ToString(v) {
						labels = append(labels, fmt.Sprintf("%s=%s", jsvalue.ToString(v), l))
					}
					continue
				}
				enum = append(enum, o)
			}
		} else {
			dynamic = "the app computes the choices"
			var reqs []string
			eachOperator(opts, func(op string, params any) {
				if op == "_request" {
					if k := paramKey(params); k != "" {
						first, _, _ := strings.Cut(k, ".")
						reqs = appendUnique(reqs, first)
					}
				}
			})
			if len(reqs) > 0 {
				dynamic = "choices come from request " + strings.Join(reqs, ", ")
			}
		}
	}
	if n.meta.Options == blocks.SuggestedOptions {
		// AutoComplete: the options are suggestions and any text is a value, never an enum.
		var sugg []string
		for _, v := range enum {
			sugg = append(sugg, jsvalue.ToString(v))
		}
		enum, labels = nil, nil
		switch {
		case len(sugg) > 0:
			labels = []string{"Suggestions: " + strings.Join(sugg, ", ") + "; any text is accepted"}
		case dynamic != "":
			labels = []string{"Suggestions come from the app (" + dynamic + "); any text is accepted"}
		}
		dynamic = ""
	}
	enumType := func() string {
		t := ""
		for _, v := range enum {
			vt := ""
			switch v.(type) {
			case string:
				vt = "string"
			case float64:
				vt = "number"
			case bool:
				vt = "boolean"
			default:
				return ""
			}
			if t != "" && t != vt {
				return ""
			}
			t = vt
		}
		return t
	}
	withEnum := func(o *jsvalue.Object, def string) {
		if len(enum) > 0 {
			if t := enumType(); t != "" {
				o.Set("type", t)
			}
			o.Set("enum", enum)
			return
		}
		if def != "" {
			o.Set("type", def)
		}
	}
	dateNote := ""
	switch n.meta.ValueType {
	case "string":
		withEnum(s, "string")
	case "number":
		s.Set("type", "number")
	case "boolean":
		s.Set("type", "boolean")
	case "date":
		dateNote = dateSchema(s, n)
	case "array":
		if n.typ == "DateRangeSelector" {
			dateNote = dateSchema(s, n)
			break
		}
		items := jsvalue.NewObject(2)
		switch {
		case strings.HasPrefix(n.typ, "AgGridInput"):
			items.Set("type", "object")
		default:
			withEnum(items, "string")
		}
		s.Set("type", "array")
		s.Set("items", items)
	case "any":
		def := "string"
		if n.typ == "RatingSlider" {
			def = "number"
		}
		withEnum(s, def)
	case "object":
		s.Set("type", "object")
		if n.typ == "PhoneNumberInput" {
			s.Set("properties", jsvalue.ObjectOf("code", jsvalue.ObjectOf("type", "string"), "phone", jsvalue.ObjectOf("type", "string")))
		}
	}
	var notes []string
	if d := describe(n); d != "" {
		notes = append(notes, d)
	}
	if dateNote != "" {
		notes = append(notes, dateNote)
	}
	if len(labels) > 0 && n.meta.Options == blocks.SuggestedOptions {
		notes = append(notes, labels[0]+".")
	} else if len(labels) > 0 {
		notes = append(notes, "Values: "+strings.Join(labels, ", ")+".")
	}
	if dynamic != "" {
		notes = append(notes, "Valid values come from the app ("+dynamic+").")
	}
	if n.conditional {
		if len(n.dependsOn) > 0 {
			notes = append(notes, "Used only when shown; that depends on "+strings.Join(n.dependsOn, ", ")+".")
		} else {
			notes = append(notes, "Used only when shown.")
		}
	}
	if _, computed := n.cfg.Prop("required").(*jsvalue.Object); computed {
		notes = append(notes, "Required in some cases.")
	}
	if len(notes) > 1 && !strings.ContainsAny(notes[0][len(notes[0])-1:], ".?!:") {
		notes[0] += "."
	}
	if len(notes) > 0 {
		s.Set("description", strings.Join(notes, " "))
	}
	return s
}

// describe is the block's own words for itself: mcp.description, else its label title,
// title or placeholder (strings only, as written).
func describe(n *node) string {
	if d, ok := mcpAnnotation(n.cfg).Prop("description").(string); ok && d != "" {
		return d
	}
	props, _ := n.cfg.Prop("properties").(*jsvalue.Object)
	label, _ := props.Prop("label").(*jsvalue.Object)
	for _, v := range []any{label.Prop("title"), props.Prop("title"), props.Prop("placeholder")} {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// setNested puts schema s at the dotted path name inside props (an object schema's
// properties), making the objects on the way, and adds the required names level by
// level. It returns an error when a path runs through a value that is not an object.
func setNested(props *jsvalue.Object, req *[]any, name string, s *jsvalue.Object, required bool, conflict func(string)) {
	head, rest, nested := strings.Cut(name, ".")
	if !nested {
		if props.Has(head) {
			if conflict != nil {
				conflict(name)
			}
			return
		}
		props.Set(head, s)
		if required {
			*req = append(*req, head)
		}
		return
	}
	child, _ := props.Prop(head).(*jsvalue.Object)
	if child == nil {
		if props.Has(head) {
			if conflict != nil {
				conflict(name)
			}
			return
		}
		child = jsvalue.ObjectOf("type", "object", "properties", jsvalue.NewObject(2), "additionalProperties", false)
		props.Set(head, child)
	}
	cp, ok := child.Prop("properties").(*jsvalue.Object)
	if !ok || child.Prop("type") != "object" {
		if conflict != nil {
			conflict(name)
		}
		return
	}
	var sub []any
	if r, ok := child.Prop("required").([]any); ok {
		sub = r
	}
	setNested(cp, &sub, rest, s, required, conflict)
	if len(sub) > 0 {
		child.Set("required", sub)
		if !slices.Contains(*req, any(head)) {
			*req = append(*req, head)
		}
	}
}

// inputSchema is a form's input schema: its fields with dotted ids as nested objects,
// then urlQuery and input when the page reads them. Conflicting paths (an id that is a
// prefix of another) keep the first and report the other.
func (f *formSpec) inputSchema(conflict func(string)) *jsvalue.Object {
	props := jsvalue.NewObject(len(f.Fields) + 2)
	var req []any
	for _, fl := range f.Fields {
		setNested(props, &req, fl.ID, fl.Schema, fl.Required, conflict)
	}
	for _, r := range f.Records {
		setNested(props, &req, r.Path, jsvalue.ObjectOf("description", r.describe()), true, conflict)
	}
	for _, extra := range []struct {
		name string
		keys []string
		what string
	}{
		{"urlQuery", f.URLQuery, "The page's URL query (_url_query), such as the id of the record to work on"},
		{"input", f.Input, "The page's input (_input), as a link to the page passes it"},
	} {
		if len(extra.keys) == 0 || props.Has(extra.name) {
			continue
		}
		o := jsvalue.ObjectOf("type", "object")
		if extra.keys[0] != "*" {
			kp := jsvalue.NewObject(len(extra.keys))
			for _, k := range extra.keys {
				kp.Set(k, jsvalue.NewObject(0))
			}
			o.Set("properties", kp)
			o.Set("description", extra.what+": "+strings.Join(extra.keys, ", ")+".")
		} else {
			o.Set("description", extra.what+".")
		}
		if extra.name == "urlQuery" && len(f.URLQueryNeeded) > 0 && extra.keys[0] != "*" {
			var need []any
			for _, k := range f.URLQueryNeeded {
				if slices.Contains(extra.keys, k) {
					need = append(need, k)
				}
			}
			if len(need) > 0 {
				o.Set("required", need)
				req = append(req, extra.name)
			}
		}
		props.Set(extra.name, o)
	}
	s := jsvalue.ObjectOf("type", "object", "properties", props)
	if len(req) > 0 {
		s.Set("required", req)
	}
	s.Set("additionalProperties", false)
	return s
}

// pageTitle is the page's title property, or "".
func pageTitle(p *app.Page) string {
	props, _ := p.Config.Prop("properties").(*jsvalue.Object)
	t, _ := props.Prop("title").(string)
	return t
}

// ---- what a submit chain reads ----

// chainReads returns what a submit chain reads of the page state. reads are the state
// paths and block ids that decide which inputs are its arguments: the _state reads of its
// actions (params, skip, messages), of the payloads of the requests it calls and of the
// CallAPI payloads, and the inputs its Validate actions check (those with rules when
// Validate names no blocks). deep adds the state paths the requests' server-side
// properties reach through the payload (payload {edit: {_state: edit}} and a property
// {_payload: edit._id} read edit._id), to find the record a form works on. all is set
// when the chain reads the whole state (_state: true) or calls requests it does not name.
func chainReads(p *app.Page, acts []*jsvalue.Object, inputs []*node) (reads, deep []string, all bool) {
	readState := func(v any) {
		eachOperator(v, func(op string, params any) {
			if op != "_state" {
				return
			}
			if o, ok := params.(*jsvalue.Object); ok && o.Prop("all") == true {
				all = true
				return
			}
			switch k := paramKey(params); k {
			case "":
			case "*":
				all = true
			default:
				reads = appendUnique(reads, k)
				deep = appendUnique(deep, k)
			}
		})
	}
	for _, act := range acts {
		readState(act)
		switch act.Prop("type") {
		case "Request":
			ids, ok := requestIDs(p, act.Prop("params"))
			if !ok {
				all = true
				continue
			}
			for _, id := range ids {
				r := p.Request(id)
				if r == nil {
					continue
				}
				payload := r.Config.Prop("payload")
				readState(payload)
				deep = appendUnique(deep, payloadReads(payload, r.Config.Prop("properties"))...)
			}
		case "Validate":
			reads = appendUnique(reads, validated(act.Prop("params"), inputs)...)
		}
	}
	return reads, deep, all
}

// payloadReads maps the _payload reads of a request's properties back to state paths
// through the payload's {_state: key} entries.
func payloadReads(payload, props any) []string {
	fromState := map[string]string{} // payload path → state path
	var walk func(v any, path string)
	walk = func(v any, path string) {
		o, ok := v.(*jsvalue.Object)
		if !ok {
			return
		}
		if op, isOp := operatorOf(o); isOp {
			if op == "_state" {
				if k := paramKey(o.Prop(o.Keys()[0])); k != "" && k != "*" && path != "" {
					fromState[path] = k
				}
			}
			return
		}
		for k, c := range o.Range {
			walk(c, strings.TrimPrefix(path+"."+k, "."))
		}
	}
	walk(payload, "")
	var out []string
	eachOperator(props, func(op string, params any) {
		if op != "_payload" {
			return
		}
		q := paramKey(params)
		for from, to := range fromState {
			switch {
			case q == from:
				out = appendUnique(out, to)
			case strings.HasPrefix(q, from+"."):
				out = appendUnique(out, to+q[len(from):])
			}
		}
	})
	slices.Sort(out)
	return out
}

// validated returns the ids of the inputs a Validate action's params match
// (getBlockMatcher): none or blockIds: true → every input with rules; a string or a list
// → those ids; regex → the inputs whose id matches.
func validated(params any, inputs []*node) []string {
	withRules := func() []string {
		var out []string
		for _, in := range inputs {
			req := in.cfg.Prop("required")
			rules, _ := in.cfg.Prop("validate").([]any)
			if (!jsvalue.IsNullish(req) && req != false) || len(rules) > 0 {
				out = append(out, in.id)
			}
		}
		return out
	}
	var ids, regex any = jsvalue.Undefined, jsvalue.Undefined
	switch v := params.(type) {
	case string:
		return []string{v}
	case []any:
		ids = v
	case *jsvalue.Object:
		ids, regex = v.Prop("blockIds"), v.Prop("regex")
	default:
		if jsvalue.IsNullish(params) {
			return withRules()
		}
	}
	var out []string
	switch x := ids.(type) {
	case bool:
		if x {
			out = withRules()
		}
	case string:
		out = append(out, x)
	case []any:
		for _, id := range x {
			if s, ok := id.(string); ok {
				out = append(out, s)
			}
		}
	}
	var res []any
	switch r := regex.(type) {
	case string:
		res = []any{r}
	case []any:
		res = r
	}
	for _, r := range res {
		re, err := regexp.Compile(jsvalue.ToString(r))
		if err != nil {
			continue
		}
		for _, in := range inputs {
			if re.MatchString(in.id) {
				out = appendUnique(out, in.id)
			}
		}
	}
	return out
}

// readsInput reports whether reading the state paths reads covers input id: the path
// itself, an object holding it, or a part of its value.
func readsInput(reads []string, id string) bool {
	for _, k := range reads {
		if k == id || strings.HasPrefix(id, k+".") || strings.HasPrefix(k, id+".") {
			return true
		}
	}
	return false
}

// recordKeys returns the state paths among deep that no input holds and that the
// SetState of another block's event (not the page lifecycle, which runs when the page
// opens) sets: the record the form works on, which a person picks on the page (a list
// row's click).
func recordKeys(nodes []*node, deep []string, inputs []*node, submit *node) []*recordKey {
	var out []*recordKey
	for _, k := range deep {
		covered := false
		for _, in := range inputs {
			if in.id == k || strings.HasPrefix(k, in.id+".") || strings.HasPrefix(in.id, k+".") {
				covered = true
				break
			}
		}
		if covered {
			continue
		}
		if r := rowSetter(nodes[0].cfg, k, submit.id); r != nil {
			out = append(out, r)
		}
	}
	return out
}

// rowSetter finds a SetState, in a non-lifecycle event of a block of the page (list items
// included) other than the submit button, that sets state path k or an object above it.
func rowSetter(page *jsvalue.Object, k, submit string) *recordKey {
	var found *recordKey
	var walk func(b *jsvalue.Object)
	walk = func(b *jsvalue.Object) {
		if found != nil {
			return
		}
		id, _ := b.Prop("blockId").(string)
		events, _ := b.Prop("events").(*jsvalue.Object)
		for name := range events.Range {
			if slices.Contains(lifecycleEvents, name) || id == submit || found != nil {
				continue
			}
			for _, act := range chain(b, name) {
				if act.Prop("type") != "SetState" {
					continue
				}
				params, _ := act.Prop("params").(*jsvalue.Object)
				if _, isOp := operatorOf(params); isOp {
					continue
				}
				for set, v := range params.Range {
					if k != set && !strings.HasPrefix(k, set+".") {
						continue
					}
					r := &recordKey{Path: k, Set: set, Source: id + " " + name}
					if vo, ok := v.(*jsvalue.Object); ok {
						if op, isOp := operatorOf(vo); isOp && op == "_state" {
							src := paramKey(vo.Prop(vo.Keys()[0]))
							if list, item, ok := strings.Cut(src, ".$"); ok {
								r.List, r.Item = list, strings.TrimPrefix(item, ".")
							}
						}
					}
					found = r
					return
				}
			}
		}
		for c := range app.ChildBlocks(b) {
			walk(c)
		}
	}
	walk(page)
	return found
}

// chainURLQuery returns the _url_query keys (first path segments) a submit chain reads in
// its actions and in the payloads of the requests it names.
func chainURLQuery(p *app.Page, acts []*jsvalue.Object) []string {
	var out []string
	read := func(v any) {
		eachOperator(v, func(op string, params any) {
			if op != "_url_query" {
				return
			}
			if k := paramKey(params); k != "" && k != "*" {
				first, _, _ := strings.Cut(k, ".")
				out = appendUnique(out, first)
			}
		})
	}
	for _, act := range acts {
		read(act)
		if act.Prop("type") != "Request" {
			continue
		}
		ids, _ := requestIDs(p, act.Prop("params"))
		for _, id := range ids {
			if r := p.Request(id); r != nil {
				read(r.Config.Prop("payload"))
			}
		}
	}
	return out
}
