package openapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// Options adjust an import.
type Options struct {
	// ServerName is the key of the server in the generated config. Empty: derived from the
	// spec's info.title (lower case, [a-z0-9_]), or "api".
	ServerName string
	// BaseURL overrides the base URL. Empty: the spec's first servers[].url with server
	// variables replaced by their defaults.
	BaseURL string
	// Description overrides the server description. Empty: the spec's info.title.
	Description string
	// Include and Exclude filter the operations imported, with * globs matched (without
	// regard to case) against the operationId, each tag, and "METHOD /path": an operation is
	// imported when it matches an include pattern (or there is none) and no exclude pattern.
	Include, Exclude []string
}

// isMethod reports whether key is one of the HTTP methods a path item can hold.
func isMethod(key string) bool {
	switch key {
	case "get", "put", "post", "delete", "options", "head", "patch", "trace":
		return true
	}
	return false
}

// Import reads an OpenAPI 3.0 or 3.1 document (YAML or JSON) and generates a `kind: http`
// server with one tool per operation. Operations that cannot be expressed are skipped with a
// warning; only an unreadable document or an unsupported version is an error.
func Import(spec []byte, opts Options) (*Result, error) {
	spec, err := gunzip(spec)
	if err != nil {
		return nil, err
	}
	tree, err := parseDocument(spec)
	if err != nil {
		return nil, fmt.Errorf("reading OpenAPI document: %w", err)
	}
	root, ok := tree.(*jsvalue.Object)
	if !ok {
		return nil, fmt.Errorf("reading OpenAPI document: the top level is %s, expected an object with an \"openapi\" field", describe(tree))
	}
	version, err := specVersion(root)
	if err != nil {
		return nil, err
	}
	im := &importer{filter: config.ToolFilter{Include: opts.Include, Exclude: opts.Exclude}, root: root, version: version, names: uniqueNames{}, warned: map[string]bool{}, schemes: map[string]bool{}}
	if strings.HasPrefix(getStr(root, "openapi"), "3.2") {
		im.warnf("OpenAPI %s is read as 3.1; features new in 3.2 are ignored", getStr(root, "openapi"))
	}

	name := opts.ServerName
	if name == "" {
		name = strings.ToLower(sanitizeName(strings.NewReplacer("-", "_", ".", "_").Replace(getStr(getObj(root, "info"), "title"))))
		if name == "" {
			name = "api"
		}
	} else if err := checkServerName(name); err != nil {
		return nil, err
	}
	desc := strings.TrimSpace(opts.Description)
	if desc == "" {
		desc = truncateText(getStr(getObj(root, "info"), "title"), maxToolDescLen)
	}
	server := &Server{Kind: "http", Description: desc, BaseURL: im.baseURL(opts.BaseURL)}
	im.base = server.BaseURL
	res := &Result{Name: name, Server: server}

	if paths, ok := root.Get("paths"); ok {
		pathsObj, isObj := paths.(*jsvalue.Object)
		if !isObj {
			return nil, fmt.Errorf("reading OpenAPI document: paths is %s, expected an object", describe(paths))
		}
		for path, item := range pathsObj.Range {
			res.Operations += im.importPath(path, item, server)
		}
	}
	if root.Has("webhooks") {
		im.warnf("webhooks are not imported (they are requests the API sends, not operations an agent can call)")
	}
	res.Filtered = im.filtered
	if len(server.Tools) == 0 {
		if im.filtered > 0 {
			return nil, fmt.Errorf("%s left out all %d operations, so there is nothing to import; some that exist: %s (a pattern matches an operationId, a tag or \"METHOD /path\", * for any characters)", describeFilter(opts), im.filtered, strings.Join(im.leftOut, ", "))
		} else {
			im.warnf("the document has no operations that could be imported")
		}
	}
	server.Notes = im.securityNotes()
	res.Warnings = im.warnings
	return res, nil
}

var serverNameRE = lazy.Regexp{Expr: `^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`}

func checkServerName(name string) error {
	if !serverNameRE.Get().MatchString(name) {
		return fmt.Errorf("server name %q: use 1-64 characters from [A-Za-z0-9_.-], starting with a letter or digit", name)
	}
	return nil
}

// specVersion checks the openapi field and returns "3.0" or "3.1".
func specVersion(root *jsvalue.Object) (string, error) {
	if v, ok := root.Get("swagger"); ok {
		return "", fmt.Errorf("this is a Swagger %v document, which is not supported: convert it to OpenAPI 3 first (for example with swagger2openapi or https://converter.swagger.io) and import the result", v)
	}
	v, ok := root.Get("openapi")
	if !ok {
		return "", errors.New(`reading OpenAPI document: no "openapi" version field; is this an OpenAPI 3 description?`)
	}
	s, _ := v.(string)
	if n, isNum := v.(json.Number); isNum {
		s = string(n) // openapi: 3.0 written without quotes
	}
	switch {
	case strings.HasPrefix(s, "3.0"):
		return "3.0", nil
	case strings.HasPrefix(s, "3.1"), strings.HasPrefix(s, "3.2"):
		return "3.1", nil
	default:
		return "", fmt.Errorf("OpenAPI version %v is not supported: use an OpenAPI 3.0 or 3.1 document", v)
	}
}

// importer holds the state of one import.
// maxLeftOutShown is how many operations left out by the filter an error names.
const maxLeftOutShown = 8

// maxDecompressed bounds the size of a gzip-compressed document once decompressed.
const maxDecompressed = 64 << 20

// gunzip returns spec decompressed when it is gzip-compressed (it starts with gzip's magic
// bytes, whatever the file is called), else spec itself.
func gunzip(spec []byte) ([]byte, error) {
	if len(spec) < 2 || spec[0] != 0x1f || spec[1] != 0x8b {
		return spec, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(spec))
	if err != nil {
		return nil, fmt.Errorf("reading OpenAPI document: it is gzip-compressed but cannot be read: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, maxDecompressed+1))
	if err != nil {
		return nil, fmt.Errorf("reading OpenAPI document: it is gzip-compressed but cannot be decompressed: %w", err)
	}
	if len(data) > maxDecompressed {
		return nil, fmt.Errorf("reading OpenAPI document: it is gzip-compressed and larger than %d MiB decompressed", maxDecompressed>>20)
	}
	return data, nil
}

// describeFilter names the include and exclude patterns of opts, as the command line gives
// them.
func describeFilter(opts Options) string {
	var parts []string
	for _, p := range opts.Include {
		parts = append(parts, "--include "+strconv.Quote(p))
	}
	for _, p := range opts.Exclude {
		parts = append(parts, "--exclude "+strconv.Quote(p))
	}
	return strings.Join(parts, " ")
}

type importer struct {
	filter   config.ToolFilter
	filtered int      // operations left out by the filter
	leftOut  []string // the first few of them, named for an error
	root     *jsvalue.Object
	version  string
	names    uniqueNames
	warnings []string
	warned   map[string]bool
	schemes  map[string]bool // security schemes referenced by imported operations
	order    []string        // schemes in first-use order
	base     string          // the server's base URL
}

func (im *importer) warnf(format string, args ...any) {
	w := fmt.Sprintf(format, args...)
	if im.warned[w] {
		return
	}
	im.warned[w] = true
	im.warnings = append(im.warnings, w)
}

// baseURL picks the override or the first server URL with its variables substituted.
func (im *importer) baseURL(override string) string {
	if override != "" {
		return strings.TrimRight(override, "/")
	}
	servers := getList(im.root, "servers")
	if len(servers) == 0 {
		servers = im.firstOperationServers()
		if len(servers) == 0 {
			im.warnf("the document lists no servers: set base_url (or pass a base URL) before using the tools")
			return ""
		}
	}
	srv, _ := servers[0].(*jsvalue.Object)
	u := im.serverURL(srv)
	if u == "" {
		im.warnf("servers[0] has no url: set base_url before using the tools")
		return ""
	}
	if parsed, err := url.Parse(u); err != nil || !parsed.IsAbs() {
		im.warnf("server URL %q is not an absolute URL: set base_url to where the API is served", u)
	}
	if len(servers) > 1 {
		im.warnf("the document lists %d servers; using the first (%s)", len(servers), u)
	}
	return u
}

// firstOperationServers returns the servers of the first path item or operation that has
// some, for documents that declare servers only below the top level.
func (im *importer) firstOperationServers() []any {
	for _, item := range getObj(im.root, "paths").Range {
		pi, err := deref(im.root, item)
		if err != nil {
			continue
		}
		if l := getList(pi, "servers"); len(l) > 0 {
			return l
		}
		for key, op := range pi.Range {
			if o, ok := op.(*jsvalue.Object); ok && isMethod(key) {
				if l := getList(o, "servers"); len(l) > 0 {
					return l
				}
			}
		}
	}
	return nil
}

// serverURL returns a server object's URL with its variables replaced by their defaults,
// without a trailing slash.
func (im *importer) serverURL(srv *jsvalue.Object) string {
	raw := getStr(srv, "url")
	if raw == "" {
		return ""
	}
	vars := getObj(srv, "variables")
	u := serverVarRE.Get().ReplaceAllStringFunc(raw, func(m string) string {
		name := m[1 : len(m)-1]
		v := getObj(vars, name)
		def, ok := v.Get("default")
		if !ok {
			if enum := getList(v, "enum"); len(enum) > 0 {
				def = enum[0]
			} else {
				im.warnf("server variable %q in %s has no default: edit base_url", name, raw)
				return m
			}
		}
		return fmt.Sprint(def)
	})
	return strings.TrimRight(u, "/")
}

var serverVarRE = lazy.Regexp{Expr: `\{[^{}]*\}`}
