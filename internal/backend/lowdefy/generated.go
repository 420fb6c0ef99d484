package lowdefy

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
)

// The generated tools and resources of seed 000: forms become tools, query pages
// resources, API endpoints api_{endpointId} tools; the app's mcp section adjusts them.

// ResourceScheme is the URI scheme of a Lowdefy app's resources: lowdefy://{pageId}/{name}.
const ResourceScheme = "lowdefy"

// genTool is one generated tool.
type genTool struct {
	tool *mcp.Tool
	// form is the submit button the tool fills and clicks; nil for an endpoint tool.
	form *formSpec
	// endpoint is the endpoint an api_ tool calls.
	endpoint string
	// confirm is set by mcp.tools.{name}.confirm: the call needs confirm: true.
	confirm bool
}

// pageID is the page whose auth applies to the tool ("" for an endpoint tool).
func (g *genTool) pageID() string {
	if g.form == nil {
		return ""
	}
	return g.form.Page.ID
}

// genResource is one page served as a resource.
type genResource struct {
	res      *mcp.Resource
	page     *app.Page
	requests []string
}

// generated is what an app offers beyond the work-session tools.
type generated struct {
	tools     []*genTool
	byName    map[string]*genTool
	resources []*genResource
	byURI     map[string]*genResource
}

// toolOverride is one entry of the app's mcp.tools.
type toolOverride struct {
	description string
	enabled     *bool
	confirm     bool
}

// resourceSetting is one entry of the app's mcp.resources.
type resourceSetting struct {
	description string
	enabled     *bool
	page        string
	requests    []string
}

// mcpSettings is the app's mcp section (limits are read by limitsOf).
type mcpSettings struct {
	enabled       bool
	tools         map[string]toolOverride
	toolOrder     []string
	resources     map[string]resourceSetting
	resourceOrder []string
}

// settingsOf reads the app's mcp section. The app loader's schema already refused
// unknown keys and wrong types with file:line:col; this checks again for apps read from
// build artifacts, naming the field by its path.
func settingsOf(a *app.App) (*mcpSettings, error) {
	s := &mcpSettings{enabled: true, tools: map[string]toolOverride{}, resources: map[string]resourceSetting{}}
	if a.MCP == nil {
		return s, nil
	}
	var errs []error
	bad := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("the app's mcp.%s: %s", path, fmt.Sprintf(format, args...)))
	}
	str := func(path string, v any) string {
		s, ok := v.(string)
		if !ok {
			bad(path, "must be a string")
		}
		return s
	}
	boolean := func(path string, v any) bool {
		b, ok := v.(bool)
		if !ok {
			bad(path, "must be true or false")
		}
		return b
	}
	// entries calls each for the entries of mcp.k (tools, resources), a map v of objects;
	// what is not is reported as notMap or notObject.
	entries := func(k string, v any, notMap, notObject string, each func(name, path string, o *jsvalue.Object)) {
		o, ok := v.(*jsvalue.Object)
		if !ok {
			bad(k, "%s", notMap)
			return
		}
		for name, ev := range o.Range {
			path := k + "." + name
			eo, ok := ev.(*jsvalue.Object)
			if !ok {
				bad(path, "%s", notObject)
				continue
			}
			each(name, path, eo)
		}
	}
	for k, v := range a.MCP.Range {
		switch k {
		case "limits", "timeZone": // read by the backend and the app loader
		case "enabled":
			b, ok := v.(bool)
			if !ok {
				bad(k, "must be true or false")
				continue
			}
			s.enabled = b
		case "tools":
			entries(k, v, "must map tool names to {description, enabled, confirm}",
				"must be an object such as {description: ..., enabled: false, confirm: true}",
				func(name, path string, to *jsvalue.Object) {
					var ov toolOverride
					for key, val := range to.Range {
						switch key {
						case "description":
							ov.description = str(path+"."+key, val)
						case "enabled":
							b := boolean(path+"."+key, val)
							ov.enabled = &b
						case "confirm":
							ov.confirm = boolean(path+"."+key, val)
						default:
							bad(path+"."+key, "unknown setting (there are description, enabled and confirm)")
						}
					}
					s.tools[name] = ov
					s.toolOrder = append(s.toolOrder, name)
				})
		case "resources":
			entries(k, v, "must map resource names to {description, enabled, page, requests}",
				"must be an object such as {enabled: false} or {page: dashboard, requests: [get_stats]}",
				func(name, path string, ro *jsvalue.Object) {
					var rs resourceSetting
					for key, val := range ro.Range {
						switch key {
						case "description":
							rs.description = str(path+"."+key, val)
						case "page":
							rs.page = str(path+"."+key, val)
						case "enabled":
							b := boolean(path+"."+key, val)
							rs.enabled = &b
						case "requests":
							list, ok := val.([]any)
							for _, x := range list {
								id, isStr := x.(string)
								if !isStr {
									ok = false
								}
								rs.requests = append(rs.requests, id)
							}
							if !ok {
								bad(path+"."+key, "must be a list of request ids")
							}
						default:
							bad(path+"."+key, "unknown setting (there are description, enabled, page and requests)")
						}
					}
					s.resources[name] = rs
					s.resourceOrder = append(s.resourceOrder, name)
				})
		default:
			bad(k, "unknown setting (there are enabled, limits, timeZone, tools and resources)")
		}
	}
	return s, errors.Join(errs...)
}

var toolNameRE = lazy.Regexp{Expr: `^[A-Za-z0-9_.-]{1,128}$`}

// snake turns an id into snake_case: new-ticket and newTicket become new_ticket.
func snake(s string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		switch {
		case unicode.IsUpper(r):
			if prevLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
			prevLower = false
		}
	}
	return strings.Trim(b.String(), "_")
}

// FormToolPrefix starts the name of a generated form tool: submit_{page} (one submit
// button on the page) or submit_{page}_{button} (several).
const FormToolPrefix = "submit_"

// APIToolPrefix starts the name of an endpoint's tool: api_{endpointId}.
const APIToolPrefix = "api_"

// generate builds the app's generated tools and resources. reserved are names taken by
// other tools (the work-session tools). A problem (a clash of names, an mcp setting that
// names nothing) is an error that says what to change.
func generate(a *app.App, reserved []string) (*generated, error) {
	g := &generated{byName: map[string]*genTool{}, byURI: map[string]*genResource{}}
	settings, err := settingsOf(a)
	if err != nil {
		return nil, err
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	classes := classifyApp(a)
	owner := map[string]string{} // tool name → what made it, for clash messages
	add := func(t *genTool, what string) {
		name := t.tool.Name
		if !toolNameRE.Get().MatchString(name) {
			bad("%s: tool name %q may only hold letters, digits, _, - and . (at most 128)", what, name)
			return
		}
		if slices.Contains(reserved, name) {
			bad("%s: tool name %q is taken by a work-session tool; give it another with mcp: {toolName: ...}", what, name)
			return
		}
		if prev, dup := owner[name]; dup {
			bad("%s: tool name %q is also the name of %s; give one of them another with mcp: {toolName: ...}", what, name, prev)
			return
		}
		owner[name] = what
		g.tools = append(g.tools, t)
		g.byName[name] = t
	}
	for _, pc := range classes {
		if pc.Kind != kindForm {
			continue
		}
		pageAnn := mcpAnnotation(pc.Page.Config)
		for _, f := range pc.Forms {
			ann := mcpAnnotation(f.ButtonConfig)
			if excluded(f.ButtonConfig) {
				continue
			}
			what := fmt.Sprintf("page %s, button %s", f.Page.ID, f.Button)
			name, _ := ann.Prop("toolName").(string)
			if name == "" && len(pc.Forms) == 1 {
				name, _ = pageAnn.Prop("toolName").(string)
			}
			if name == "" {
				name = FormToolPrefix + snake(f.Page.ID)
				if len(pc.Forms) > 1 {
					name += "_" + snake(f.Button)
				}
			}
			desc, _ := ann.Prop("description").(string)
			if desc == "" && len(pc.Forms) == 1 {
				desc, _ = pageAnn.Prop("description").(string)
			}
			if desc == "" {
				desc = formDescription(f)
			}
			schema := f.inputSchema(func(path string) {
				bad("%s: input %s cannot be an argument: another input's id already uses that path", what, path)
			})
			add(&genTool{form: f, tool: &mcp.Tool{Name: name, Description: desc, InputSchema: schema}}, what)
		}
	}
	for i, ep := range a.API {
		o, ok := ep.(*jsvalue.Object)
		if !ok {
			continue
		}
		id, _ := o.Prop("id").(string)
		if id == "" || excluded(o) {
			continue
		}
		ann := mcpAnnotation(o)
		what := fmt.Sprintf("api[%d] (endpoint %s)", i, id)
		name, _ := ann.Prop("toolName").(string)
		if name == "" {
			name = APIToolPrefix + regexp.MustCompile(`[^A-Za-z0-9_.-]`).ReplaceAllString(id, "_")
		}
		desc, _ := ann.Prop("description").(string)
		if desc == "" {
			desc, _ = o.Prop("description").(string)
		}
		if desc == "" {
			desc = fmt.Sprintf("Call API endpoint %s. The arguments are its payload (_payload); returns its response.", id)
		}
		var schema any = jsvalue.ObjectOf("type", "object")
		if s, ok := ann.Prop("inputSchema").(*jsvalue.Object); ok {
			if s.Prop("type") != "object" {
				bad("%s: mcp.inputSchema must be an object schema (type: object): the arguments are the payload", what)
				continue
			}
			schema = s.Clone()
		}
		add(&genTool{endpoint: id, tool: &mcp.Tool{Name: name, Description: desc, InputSchema: schema}}, what)
	}
	// mcp.tools: overrides of the generated tools, by name.
	for _, name := range settings.toolOrder {
		ov := settings.tools[name]
		t := g.byName[name]
		if t == nil {
			known := slices.Sorted(maps.Keys(g.byName))
			list := "none: the app has no form or API endpoint that becomes a tool"
			if len(known) > 0 {
				list = strings.Join(known, ", ")
			}
			bad("the app's mcp.tools.%s: no generated tool is named %s; the generated tools are: %s", name, name, list)
			continue
		}
		if ov.description != "" {
			t.tool.Description = ov.description
		}
		if ov.confirm {
			t.confirm = true
			t.tool.Description += " Destructive: the call must say confirm: true."
			t.tool.Annotations = &mcp.ToolAnnotations{DestructiveHint: ptr(true)}
			withConfirm(t.tool)
		}
		if ov.enabled != nil && !*ov.enabled {
			delete(g.byName, name)
			g.tools = slices.DeleteFunc(g.tools, func(x *genTool) bool { return x == t })
		}
	}
	// Resources: the query pages, then mcp.resources.
	for _, pc := range classes {
		if pc.Kind != kindQuery {
			continue
		}
		r := newResource(pc.Page, snake(pc.Page.ID), pc.Reads, "")
		g.resources = append(g.resources, r)
	}
	byName := func(name string) *genResource {
		for _, r := range g.resources {
			if r.res.Name == name {
				return r
			}
		}
		return nil
	}
	for _, name := range settings.resourceOrder {
		rs := settings.resources[name]
		path := "the app's mcp.resources." + name
		r := byName(name)
		if rs.page != "" {
			p := a.Page(rs.page)
			if p == nil {
				bad("%s.page: the app has no page %q", path, rs.page)
				continue
			}
			reqs := rs.requests
			if len(reqs) == 0 {
				reqs = lifecycleRequests(p)
			}
			if len(reqs) == 0 {
				bad("%s: page %s runs no request when it opens; name the requests to serve with requests: [...]", path, p.ID)
				continue
			}
			missing := false
			runs := lifecycleRequests(p)
			for _, id := range reqs {
				switch {
				case p.Request(id) == nil:
					bad("%s.requests: page %s has no request %q", path, p.ID, id)
					missing = true
				case !slices.Contains(runs, id):
					bad("%s.requests: page %s does not run request %q when it opens; a resource serves what its page loads", path, p.ID, id)
					missing = true
				}
			}
			if missing {
				continue
			}
			nr := newResource(p, name, reqs, rs.description)
			if r != nil {
				*r = *nr
			} else {
				g.resources = append(g.resources, nr)
				r = nr
			}
		} else if r == nil {
			var known []string
			for _, x := range g.resources {
				known = append(known, x.res.Name)
			}
			list := "none: no page classifies as a query page"
			if len(known) > 0 {
				list = strings.Join(known, ", ")
			}
			bad("%s: no generated resource is named %s (they are: %s); to serve another page's data, give page (and requests)", path, name, list)
			continue
		}
		if rs.description != "" {
			r.res.Description = rs.description
		}
		if rs.enabled != nil && !*rs.enabled {
			g.resources = slices.DeleteFunc(g.resources, func(x *genResource) bool { return x == r })
		}
	}
	if !settings.enabled {
		g.tools, g.resources = nil, nil
		g.byName = map[string]*genTool{}
	}
	for _, r := range g.resources {
		if _, dup := g.byURI[r.res.URI]; dup {
			bad("resource %s is defined twice", r.res.URI)
		}
		g.byURI[r.res.URI] = r
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return g, nil
}

func ptr[T any](v T) *T { return &v }

// withConfirm adds the required confirm: true argument to a tool's schema.
func withConfirm(t *mcp.Tool) {
	s, ok := t.InputSchema.(*jsvalue.Object)
	if !ok {
		return
	}
	s = s.Clone()
	props, _ := s.Prop("properties").(*jsvalue.Object)
	if props == nil {
		props = jsvalue.NewObject(1)
	} else {
		props = props.Clone()
	}
	props.Set("confirm", jsvalue.ObjectOf("type", "boolean", "const", true, "description", "Must be true: you confirm this destructive action."))
	s.Set("properties", props)
	req, _ := s.Prop("required").([]any)
	s.Set("required", append(slices.Clone(req), "confirm"))
	t.InputSchema = s
}

// formDescription says what a form tool does, from the page's and button's titles.
func formDescription(f *formSpec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Submit the form on page %s", f.Page.ID)
	if t := pageTitle(f.Page); t != "" {
		fmt.Fprintf(&b, " (%q)", t)
	}
	if len(f.Records) > 0 {
		var keys []string
		for _, r := range f.Records {
			keys = append(keys, r.Path)
		}
		fmt.Fprintf(&b, ": picks the record (%s), fills in its inputs and ", strings.Join(keys, ", "))
	} else {
		b.WriteString(": fills in its inputs and ")
	}
	props, _ := f.ButtonConfig.Prop("properties").(*jsvalue.Object)
	title, _ := props.Prop("title").(string)
	switch {
	case f.Event == "onOk":
		fmt.Fprintf(&b, "presses OK on %s", cmpOr(title, f.Button))
	case title != "":
		fmt.Fprintf(&b, "clicks %q", title)
	default:
		b.WriteString("clicks " + f.Button)
	}
	var runs []string
	for _, w := range f.Writes {
		runs = append(runs, "request "+w)
	}
	for _, e := range f.Endpoints {
		runs = append(runs, "endpoint "+e)
	}
	fmt.Fprintf(&b, ", which runs %s.", strings.Join(runs, ", "))
	return b.String()
}

// lifecycleRequests are the requests a page's lifecycle events run, in order.
func lifecycleRequests(p *app.Page) []string {
	var out []string
	for _, n := range walkPage(p) {
		for _, ev := range lifecycleEvents {
			for _, act := range chain(n.cfg, ev) {
				if act.Prop("type") == "Request" {
					ids, _ := requestIDs(p, act.Prop("params"))
					out = appendUnique(out, ids...)
				}
			}
		}
	}
	return out
}

func newResource(p *app.Page, name string, requests []string, desc string) *genResource {
	if desc == "" {
		desc = fmt.Sprintf("The data page %s", p.ID)
		if t := pageTitle(p); t != "" {
			desc += fmt.Sprintf(" (%q)", t)
		}
		desc += fmt.Sprintf(" loads when it opens (%s), as JSON by request id.", strings.Join(requests, ", "))
	}
	return &genResource{
		page: p, requests: requests,
		res: &mcp.Resource{
			URI:         fmt.Sprintf("%s://%s/%s", ResourceScheme, p.ID, name),
			Name:        name,
			Title:       pageTitle(p),
			Description: desc,
			MIMEType:    "application/json",
		},
	}
}

// ToolAllowed hides a generated form tool from a principal whose user may not open its page
// (the app's auth.pages): the gateway neither lists nor dispatches it (backend.ToolGate).
// The session tools and endpoint tools are for every principal the server admits; an
// endpoint's own auth is checked when it is called.
func (b *Backend) ToolAllowed(p auth.Principal, tool string) bool {
	t := b.gen.byName[tool]
	if t == nil || t.pageID() == "" {
		return true
	}
	return b.srv.PageAllowed(b.user(p), t.pageID())
}
