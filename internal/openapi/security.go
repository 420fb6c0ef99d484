package openapi

import (
	"fmt"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// noteSecurity records the security schemes an operation needs (its own security, or the
// document's when it has none).
func (im *importer) noteSecurity(op *jsvalue.Object) {
	reqs, has := op.Get("security")
	if !has {
		reqs, _ = im.root.Get("security")
	}
	list, _ := reqs.([]any)
	for _, r := range list {
		ro, ok := r.(*jsvalue.Object)
		if !ok {
			continue
		}
		for name := range ro.Range {
			if !im.schemes[name] {
				im.schemes[name] = true
				im.order = append(im.order, name)
			}
		}
	}
}

// securityNotes turns the schemes in use into warnings and config comments. No secret is
// invented: each note says which header to configure with a secret reference.
func (im *importer) securityNotes() []string {
	defs := getObj(getObj(im.root, "components"), "securitySchemes")
	var notes []string
	for _, name := range im.order {
		raw, ok := defs.Get(name)
		if !ok {
			im.warnf("security scheme %q is used but not defined in components.securitySchemes", name)
			continue
		}
		scheme, err := deref(im.root, raw)
		if err != nil {
			im.warnf("security scheme %q: %v", name, err)
			continue
		}
		secret := secretName(name)
		var kind, advice string
		switch getStr(scheme, "type") {
		case "http":
			s := strings.ToLower(getStr(scheme, "scheme"))
			kind = "http " + s
			switch s {
			case "basic":
				advice = fmt.Sprintf("headers: {Authorization: secret:%s} (the secret holds \"Basic <base64 user:password>\")", secret)
			default:
				advice = fmt.Sprintf("headers: {Authorization: secret:%s} (the secret holds \"Bearer <token>\")", secret)
			}
		case "apiKey":
			kind = "apiKey in " + getStr(scheme, "in")
			keyName := getStr(scheme, "name")
			switch getStr(scheme, "in") {
			case "header":
				advice = fmt.Sprintf("headers: {%s: secret:%s}", keyName, secret)
			case "query":
				advice = fmt.Sprintf("a constant query mapping {field: %s, in: query} whose value is secret:%s", keyName, secret)
			case "cookie":
				advice = fmt.Sprintf("a constant cookie mapping {field: %s, in: cookie} whose value is secret:%s", keyName, secret)
			default:
				advice = fmt.Sprintf("headers: {Authorization: secret:%s}", secret)
			}
		case "oauth2", "openIdConnect":
			kind = getStr(scheme, "type")
			advice = fmt.Sprintf("headers: {Authorization: secret:%s} (the secret holds \"Bearer <access token>\"; token acquisition is not automated)", secret)
		case "mutualTLS":
			kind = "mutualTLS"
			advice = "a client certificate on the server's HTTP client (not generated)"
		default:
			kind = getStr(scheme, "type")
			advice = fmt.Sprintf("headers: {Authorization: secret:%s}", secret)
		}
		note := fmt.Sprintf("security scheme %q (%s) is not imported; no secret was written: add %s to the server", name, kind, advice)
		im.warnf("%s", note)
		notes = append(notes, note)
	}
	return notes
}

// secretName suggests a secret name for a scheme: bearerAuth → BEARER_AUTH.
func secretName(scheme string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range scheme {
		isUpper := r >= 'A' && r <= 'Z'
		if isUpper && prevLower {
			b.WriteByte('_')
		}
		prevLower = (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9')
		b.WriteRune(r)
	}
	name := strings.ToUpper(headerArgName(b.String()))
	if name == "" {
		return "API_TOKEN"
	}
	return name
}
