// Package app loads a Lowdefy (v4) application into plain page structures, the way
// `@lowdefy/build` (4.0.0-rc.11) does, without running Node.
//
// Load reads `lowdefy.yaml` (or `lowdefy.yml`) from an app directory, resolves `_ref`
// (YAML, JSON5, nunjucks `.njk`, raw text, and JavaScript resolvers/transformers run in
// the internal/expr sandbox), `_var` and the build-time `_build.*` operators, validates the result against Lowdefy's app schema with file:line:col
// positions and field paths, and then applies the build's defaults: app/config/auth
// defaults, the default menu, the built-in `404` page, `blocks` moved to
// `areas.content.blocks`, event action arrays normalised to `{try, catch}`, requests
// hoisted from blocks to their page, and page auth from `auth.pages`.
//
// The result has the same shape as the build artifacts (`.lowdefy/server/build`),
// so LoadBuild, which reads such an artifacts folder, returns an equal App.
// Values are JSON-like: nil, bool, float64, string, []any and *jsvalue.Object, whose keys
// keep the order of the source (YAML, JSON and artifacts alike), with the keys the build
// adds placed where Lowdefy's build puts them.
//
// Check summarises an app for the `mcpbridge app check` command.
package app
