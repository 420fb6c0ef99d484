package gatewaytest

import (
	"fmt"
	"strings"
)

// ManyToolsCount is the number of tools of ManyToolsServer: the size of the largest real
// server the pages were measured against (a 1,223-tool API surface).
const ManyToolsCount = 1223

// PixelPNG is a 1x1 PNG, base64, which the pixel tool of ManyToolsServer prints (a command's
// output sniffed as image content).
const PixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"

// ManyToolsHostile is text the hostile tool of ManyToolsServer carries in its description
// and in its schema's titles: pages must show it as text.
const ManyToolsHostile = `<script>alert("tool")</script><img src=x onerror=alert(4)>`

// manyPrefixes are the API areas of the generated tools; a tool's name starts with one.
var manyPrefixes = []string{"actions", "billing", "checks", "gists", "issues", "orgs", "projects", "pulls", "repos", "search", "teams", "users"}

var manyVerbs = []string{"list", "get", "create", "update", "delete", "search", "sync", "export"}

// ManyToolsServer returns the YAML of one command server named name, indented to sit under
// `servers:`, with ManyToolsCount tools in the shape of a large generated API: names like
// repos_list_0042 in twelve areas, multi-line descriptions, and schemas with strings, an
// integer, an enum, a boolean, an array and a nested object. Besides the generated ones it has
// echo (echoes message), pixel (prints a PNG), hostile (HTML in its description and schema)
// and a tool with a very long name and an unbroken description.
func ManyToolsServer(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %s:\n    kind: command\n    description: A large generated API surface (%d tools)\n    tools:\n", name, ManyToolsCount)
	b.WriteString(`      echo:
        description: Echo a message back
        inputSchema: {type: object, properties: {message: {type: string, description: The text to echo}}, required: [message]}
        argv: [echo, {direct: message}]
        timeout: 5s
      pixel:
        description: Returns a 1x1 PNG (sniffed as image content)
        inputSchema: {type: object}
        argv: [sh, -c, "printf %s ` + PixelPNG + ` | base64 -d"]
        timeout: 5s
      hostile:
        description: '` + ManyToolsHostile + ` is shown as text'
        inputSchema:
          type: object
          title: '` + ManyToolsHostile + `'
          properties:
            note: {type: string, title: '` + ManyToolsHostile + `', description: '` + ManyToolsHostile + `'}
        argv: [echo, {direct: note}]
        timeout: 5s
`)
	long := strings.Repeat("averyveryverylongtoolname", 5)[:120]
	fmt.Fprintf(&b, "      %s:\n        description: %s\n        inputSchema: {type: object, properties: {%s: {type: string}}}\n        argv: [echo, ok]\n",
		long, strings.Repeat("unbroken", 60), long)
	for i := range ManyToolsCount - 4 {
		prefix := manyPrefixes[i%len(manyPrefixes)]
		verb := manyVerbs[(i/len(manyPrefixes))%len(manyVerbs)]
		fmt.Fprintf(&b, `      %s_%s_%04d:
        description: |-
          %s %s number %d of the organisation, with paging and filters.
          The caller needs read access to the %s area; results are sorted by the given direction
          and limited to per_page items. See the API reference for the fields of each item.
        inputSchema:
          type: object
          properties:
            owner: {type: string, description: The account that owns the %s}
            per_page: {type: integer, description: Items per page (at most 100), default: 30}
            direction: {type: string, enum: [asc, desc], description: Sort direction}
            archived: {type: boolean, description: Include archived items}
            labels: {type: array, items: {type: string}, description: Labels to filter by}
            filter: {type: object, properties: {since: {type: string}, state: {type: string}}, description: Extra filters}
          required: [owner]
        argv: [echo, {direct: owner}]
`, prefix, verb, i, strings.ToUpper(verb[:1])+verb[1:], prefix, i, prefix, prefix)
	}
	return b.String()
}
