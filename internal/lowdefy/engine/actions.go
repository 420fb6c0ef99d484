package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

type actionFunc func(ctx context.Context, p *Page, run *actionRun, params any) (any, error)

// actionFuncs returns the actions the engine runs, by type. The table is built on first use,
// by a function rather than a package-level initialiser, as the actions reach back here
// through the page's events.
func actionFuncs() map[string]actionFunc {
	actionsOnce.Do(func() { actionTable = newActionFuncs() })
	return actionTable
}

var (
	actionsOnce sync.Once
	actionTable map[string]actionFunc
)

func newActionFuncs() map[string]actionFunc {
	return map[string]actionFunc{
		"CallAPI":                    actCallAPI,
		"CallMethod":                 actCallMethod,
		"CopyToClipboard":            browserOnly("CopyToClipboard"),
		"DisplayMessage":             actDisplayMessage,
		"Fetch":                      actFetch,
		"GeolocationCurrentPosition": browserOnly("GeolocationCurrentPosition"),
		"Link":                       actLink,
		"Login":                      recordAuth("Login"),
		"Logout":                     recordAuth("Logout"),
		"Request":                    actRequest,
		"Reset":                      actReset,
		"ResetValidation":            actResetValidation,
		"ScrollTo": func(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
			if _, ok := params.(*jsvalue.Object); !ok {
				return nil, fmt.Errorf("Invalid ScrollTo, check action params. Received \"%s\".", stringify(params))
			}
			return browserOnly("ScrollTo")(ctx, p, run, params)
		},
		"SetFocus":      browserOnly("SetFocus"),
		"SetGlobal":     actSetGlobal,
		"SetState":      actSetState,
		"Throw":         actThrow,
		"UpdateSession": recordAuth("UpdateSession"),
		"Validate":      actValidate,
		"Wait":          actWait,
	}
}

// ActionTypes returns the action types the engine runs, sorted.
func ActionTypes() []string {
	names := slices.Sorted(maps.Keys(actionFuncs()))
	return names
}

func stringify(v any) string {
	s, ok := serial.Stringify(v, "", true)
	if !ok {
		return "undefined"
	}
	return s
}

func browserOnly(name string) actionFunc {
	return func(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
		p.e.record("type", "warning", "action", name, "message", name+" is a browser-only action; it has no effect headless.")
		return jsvalue.Undefined, nil
	}
}

// recordAuth records Login, Logout and UpdateSession with their params
// (null when none; UpdateSession takes none).
func recordAuth(name string) actionFunc {
	return func(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
		if name == "UpdateSession" || jsvalue.IsUndefined(params) {
			params = nil
		}
		p.e.record("type", name, "params", params)
		return jsvalue.Undefined, nil
	}
}

func actDisplayMessage(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
	if _, ok := params.(*jsvalue.Object); !ok {
		return nil, fmt.Errorf("Invalid DisplayMessage, check action params. Params must be an object, received \"%s\".", stringify(params))
	}
	p.e.record("type", "DisplayMessage", "params", params)
	return jsvalue.Undefined, nil
}

func actThrow(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
	o, ok := params.(*jsvalue.Object)
	if !ok {
		return nil, fmt.Errorf("Throw action params should be an object. Received \"%s\".", stringify(params))
	}
	t := o.Prop("throw")
	if _, isBool := t.(bool); !jsvalue.IsNullish(t) && !isBool {
		return nil, fmt.Errorf("Throw action \"throw\" param should be an boolean. Received \"%s\".", stringify(t))
	}
	if t == true {
		msg := jsvalue.ToString(o.Prop("message"))
		if jsvalue.IsUndefined(o.Prop("message")) {
			msg = ""
		}
		p.e.recordOpt("type", "Throw", "message", o.Prop("message"), "metaData", o.Prop("metaData"))
		return nil, &throwError{message: msg}
	}
	return jsvalue.Undefined, nil
}

func actWait(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
	o, _ := params.(*jsvalue.Object)
	ms, ok := o.Prop("ms").(float64)
	if !ok || ms != float64(int64(ms)) {
		return nil, errors.New(`Wait action "ms" param should be an integer.`)
	}
	return jsvalue.Undefined, p.e.opts.Sleep(ctx, time.Duration(ms)*time.Millisecond)
}

// paramsObject is an action's params as Object.keys sees them (setState, setGlobal): an
// object's keys, an array's or a string's indexes ("0", "1", …), nothing for numbers and
// booleans, and a TypeError for undefined and null.
func paramsObject(params any) (*jsvalue.Object, error) {
	switch v := params.(type) {
	case *jsvalue.Object:
		return v, nil
	case []any:
		o := jsvalue.NewObject(len(v))
		for i, x := range v {
			o.Set(strconv.Itoa(i), x)
		}
		return o, nil
	case string:
		units := utf16.Encode([]rune(v))
		o := jsvalue.NewObject(len(units))
		for i := range units {
			o.Set(strconv.Itoa(i), string(utf16.Decode(units[i:i+1])))
		}
		return o, nil
	}
	if jsvalue.IsNullish(params) {
		return nil, errors.New("Cannot convert undefined or null to object")
	}
	return jsvalue.NewObject(0), nil
}

func actSetState(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
	o, err := paramsObject(params)
	if err != nil {
		return nil, err
	}
	p.setState(ctx, run, o)
	return jsvalue.Undefined, nil
}

// setState is the setState action method: set each path, reset the blocks
// from state (hiding validation) and update.
func (p *Page) setState(ctx context.Context, run *actionRun, values *jsvalue.Object) {
	var ai []int
	if run != nil {
		ai = run.ai
	}
	for k, v := range values.Range {
		p.set(applyArrayIndices(ai, k), v)
	}
	p.resetRoot(nil)
	p.update(ctx)
}

func actSetGlobal(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
	o, err := paramsObject(params)
	if err != nil {
		return nil, err
	}
	for k, v := range o.Range {
		setPath(p.e.global, applyArrayIndices(run.ai, k), v)
	}
	p.resetRoot(nil)
	p.update(ctx)
	return jsvalue.Undefined, nil
}

func actReset(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
	if err := p.resetState(); err != nil {
		return nil, err
	}
	p.resetRoot(p.frozenState())
	return jsvalue.Undefined, nil
}

// blockMatcher is getBlockMatcher.
func blockMatcher(params any) (func(id string) bool, error) {
	if jsvalue.IsNullish(params) {
		return func(string) bool { return true }, nil
	}
	var blockIDs any = jsvalue.Undefined
	var regex any = jsvalue.Undefined
	switch v := params.(type) {
	case string:
		blockIDs = []any{v}
	case []any, bool:
		blockIDs = v
	case *jsvalue.Object:
		blockIDs, regex = v.Prop("blockIds"), v.Prop("regex")
	default:
		return nil, errors.New("Invalid validate params.")
	}
	if s, ok := blockIDs.(string); ok {
		blockIDs = []any{s}
	}
	if s, ok := regex.(string); ok {
		regex = []any{s}
	}
	var res []*regexp.Regexp
	if arr, ok := regex.([]any); ok {
		for _, r := range arr {
			re, err := regexp.Compile(jsvalue.ToString(r))
			if err != nil {
				return nil, fmt.Errorf("Invalid regular expression %q: %w", jsvalue.ToString(r), err)
			}
			res = append(res, re)
		}
	}
	return func(id string) bool {
		if blockIDs == true {
			return true
		}
		if arr, ok := blockIDs.([]any); ok && slices.Contains(arr, any(id)) {
			return true
		}
		for _, re := range res {
			if re.MatchString(id) {
				return true
			}
		}
		return false
	}, nil
}

func actValidate(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
	match, err := blockMatcher(params)
	if err != nil {
		return nil, err
	}
	p.update(ctx)
	n := 0
	p.root.walk(func(b *block) {
		if match(b.blockID) {
			b.showValidation = true
			if b.isVisible() && b.validation.status == "error" {
				n++
			}
		}
	})
	if n > 0 {
		s := "s"
		if n == 1 {
			s = ""
		}
		return nil, fmt.Errorf("Your input has %d validation error%s.", n, s)
	}
	return jsvalue.Undefined, nil
}

func actResetValidation(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
	match, err := blockMatcher(params)
	if err != nil {
		return nil, err
	}
	p.root.walk(func(b *block) {
		if match(b.blockID) {
			b.showValidation = false
		}
	})
	return jsvalue.Undefined, nil
}

func actCallMethod(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
	o, ok := params.(*jsvalue.Object)
	if !ok {
		return nil, fmt.Errorf("Cannot destructure CallMethod params: received \"%s\".", stringify(params))
	}
	return p.callMethod(ctx, run, o)
}

// callMethod is the callMethod action method.
func (p *Page) callMethod(ctx context.Context, run *actionRun, params *jsvalue.Object) (any, error) {
	blockID := jsvalue.ToString(params.Prop("blockId"))
	method := jsvalue.ToString(params.Prop("method"))
	var ai []int
	if run != nil {
		ai = run.ai
	}
	b, err := p.block(applyArrayIndices(ai, blockID))
	if err != nil {
		return nil, fmt.Errorf("Failed to call method %q on block %q: %w", method, blockID, err)
	}
	argv := params.Prop("args")
	if jsvalue.IsUndefined(argv) {
		argv = []any{}
	}
	args, ok := argv.([]any)
	if !ok {
		return nil, fmt.Errorf("Failed to call method \"%s\" on block \"%s\": \"args\" should be an array. Received \"%s\".", method, blockID, stringify(params))
	}
	if !b.hasMethod(method) {
		return nil, fmt.Errorf("Failed to call method \"%s\" on block \"%s\". Check if \"%s\" is a valid block method for block \"%s\". Received \"%s\".", method, blockID, method, blockID, stringify(params))
	}
	return p.runMethod(ctx, b, method, args)
}

func intArg(args []any) int {
	if len(args) == 0 {
		return -1
	}
	f, _ := args[0].(float64)
	return int(f)
}

// hasMethod reports whether the block's component registers the method:
// every block has triggerEvent, registerEvent and registerMethod, inputs
// setValue, lists the list methods, and component types their own.
func (b *block) hasMethod(method string) bool {
	switch method {
	case "triggerEvent", "registerEvent", "registerMethod":
		return true
	case "setValue":
		return b.isInput()
	case "pushItem", "unshiftItem", "removeItem", "moveItemUp", "moveItemDown":
		return b.isList()
	}
	return b.meta.HasMethod(method)
}

func argObject(args []any) *jsvalue.Object {
	if len(args) > 0 {
		o, _ := args[0].(*jsvalue.Object)
		return o
	}
	return nil
}

func (p *Page) runMethod(ctx context.Context, b *block, method string, args []any) (any, error) {
	switch method {
	case "triggerEvent":
		// Block.triggerEvent({name, event}).
		a := argObject(args)
		name := jsvalue.ToString(a.Prop("name"))
		return p.triggerEvent(ctx, b, name, a.Prop("event")), nil
	case "registerEvent":
		// Events.registerEvent({name, actions}): the event runs these actions.
		a := argObject(args)
		name := jsvalue.ToString(a.Prop("name"))
		acts, _ := a.Prop("actions").([]any)
		if b.events == nil {
			b.events = jsvalue.NewObject(1)
		} else {
			b.events = copyObject(b.events)
		}
		b.events.Set(name, jsvalue.ObjectOf("try", acts, "catch", []any{}))
		return jsvalue.Undefined, nil
	case "registerMethod":
		// Registers a JavaScript function: nothing a journey can pass.
		return jsvalue.Undefined, nil
	case "setValue":
		// Block.setValue: the value is set without an onChange event.
		var v any = jsvalue.Undefined
		if len(args) > 0 {
			v = deepCopy(args[0])
		}
		p.setValue(ctx, b, v)
		return jsvalue.Undefined, nil
	case "pushItem":
		p.pushItem(ctx, b)
	case "unshiftItem":
		p.unshiftItem(ctx, b)
	case "removeItem":
		p.removeListItem(ctx, b, intArg(args))
	case "moveItemUp":
		p.moveItem(ctx, b, intArg(args), true)
	case "moveItemDown":
		p.moveItem(ctx, b, intArg(args), false)
	case "toggleOpen", "setOpen":
		open := !b.open
		if method == "setOpen" {
			open = jsvalue.Truthy(argObject(args).Prop("open"))
		}
		switch b.typ {
		case "Modal", "Drawer", "Sider":
			p.setOpen(ctx, b, open)
		default:
			b.open = open
		}
	case "open":
		if b.typ == "ConfirmModal" {
			b.open = true
			p.triggerEvent(ctx, b, "onOpen", jsvalue.Undefined)
		}
	}
	// Other component methods (Message.open, Carousel.goTo, AgGrid exports,
	// PageSiderMenu and MobileMenu toggles) only change what is drawn.
	return jsvalue.Undefined, nil
}

func actLink(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
	props, ok := params.(*jsvalue.Object)
	if s, isStr := params.(string); isStr {
		props, ok = jsvalue.ObjectOf("pageId", s), true
	}
	if !ok {
		return nil, fmt.Errorf("Invalid Link, check action params. Received \"%s\".", stringify(params))
	}
	if err := p.e.link(props); err != nil {
		p.e.log.Debug("lowdefy engine: link failed", "err", err)
		return nil, fmt.Errorf("Invalid Link, check action params. Received \"%s\".", stringify(params))
	}
	return jsvalue.Undefined, nil
}

// link is createLink with a headless router: same-origin links navigate
// after the current step, other links are only recorded.
func (e *Engine) link(props *jsvalue.Object) error {
	if props.Prop("disabled") == true {
		return nil
	}
	n := 0
	for _, k := range []string{"pageId", "back", "home", "href", "url"} {
		if jsvalue.Truthy(props.Prop(k)) {
			n++
		}
	}
	if n > 1 {
		return errors.New("Invalid Link: To avoid ambiguity, only one of 'back', 'home', 'href', 'pageId' or 'url' can be defined.")
	}
	input, urlQuery, newTab := props.Prop("input"), props.Prop("urlQuery"), props.Prop("newTab")
	if jsvalue.IsNullish(urlQuery) {
		urlQuery = jsvalue.Undefined
	}
	setInput := func(pageID string) {
		in, ok := input.(*jsvalue.Object)
		if !ok {
			in = jsvalue.NewObject(0)
		}
		e.inputs[pageID] = copyObject(in)
	}
	if props.Prop("back") == true {
		e.record("type", "Link", "back", true)
		e.pending = &navigation{back: true}
		return nil
	}
	pageID, isPage := props.Prop("pageId").(string)
	if props.Prop("home") == true {
		pageID, isPage = e.HomePageID(), true
	}
	if isPage {
		e.recordOpt("type", "Link", "pageId", pageID, "urlQuery", urlQuery, "input", input, "newTab", newTab)
		if newTab == true {
			return nil
		}
		setInput(pageID)
		e.pending = &navigation{pageID: pageID, urlQuery: urlQuery}
		return nil
	}
	if href, ok := props.Prop("href").(string); ok {
		e.recordOpt("type", "Link", "url", href, "newTab", newTab)
		return nil
	}
	if u, ok := props.Prop("url").(string); ok {
		if !strings.Contains(u, ":") {
			u = "https://" + u
		}
		e.recordOpt("type", "Link", "url", u, "urlQuery", urlQuery, "newTab", newTab)
		return nil
	}
	return errors.New("Invalid Link.")
}

func actFetch(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
	if p.e.opts.HTTPClient == nil {
		return nil, errors.New("Fetch is not available: the engine has no HTTP client.")
	}
	o, _ := params.(*jsvalue.Object)
	url := jsvalue.ToString(o.Prop("url"))
	opts, _ := o.Prop("options").(*jsvalue.Object)
	method := "GET"
	if m, ok := opts.Prop("method").(string); ok && m != "" {
		method = strings.ToUpper(m)
	}
	var body io.Reader
	if b, ok := opts.Prop("body").(string); ok {
		body = strings.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, fmt.Errorf("Failed to fetch: %w", err)
	}
	if h, ok := opts.Prop("headers").(*jsvalue.Object); ok {
		for k, v := range h.Range {
			req.Header.Set(k, jsvalue.ToString(v))
		}
	}
	res, err := p.e.opts.HTTPClient().Do(req)
	if err != nil {
		return nil, fmt.Errorf("Failed to fetch: %w", err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 32<<20))
	if err != nil {
		return nil, fmt.Errorf("Failed to fetch: %w", err)
	}
	switch rf := o.Prop("responseFunction"); rf {
	case "json":
		v, err := jsvalue.Decode(data)
		if err != nil {
			return nil, fmt.Errorf("Unexpected token in JSON: %w", err)
		}
		return v, nil
	case "text":
		return string(data), nil
	default:
		if !jsvalue.IsNullish(rf) && rf != "" && rf != false {
			return nil, fmt.Errorf("Fetch responseFunction %q is not supported headlessly (use json or text).", jsvalue.ToString(rf))
		}
	}
	// Without a responseFunction Lowdefy's response is the browser's Response object, whose
	// properties are getters: the copy _actions reads is {}.
	return jsvalue.NewObject(0), nil
}
