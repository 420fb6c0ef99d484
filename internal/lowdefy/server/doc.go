// Package server is the server side of the headless Lowdefy runtime: what Lowdefy's
// @lowdefy/api package does behind `/api/request` and `/api/endpoints`, without HTTP.
//
// What runs:
//
//   - CallRequest runs a page request as callRequest in @lowdefy/api 4.0.0-rc.11: the
//     request and its connection are looked up in the loaded app, the page's
//     protection is checked for the user (a user who may not see the page is told the
//     request does not exist), the connection's and then the request's properties are
//     evaluated with the server parser over `_payload`, `_secret` and `_user`, the
//     connection's read/write rules (`read: false`, `write: true`) and property checks
//     apply, and the connection type's request function runs. The response is
//     serialized for the client. Errors are *Error values named and worded as Lowdefy
//     names and words them (ConfigurationError, RequestError, ServerError).
//   - CallEndpoint runs an API endpoint (the `api` section of Lowdefy 4.x): the
//     endpoint is built as Lowdefy's build does (request steps get `stepId` and a
//     `request:<endpointId>:<stepId>` id, protection comes from `auth.api`), authorised,
//     and its routine runs with the control keys `:if`/`:then`/`:else`, `:switch`,
//     `:for`/`:in`/`:do`, `:parallel`, `:parallel_for`, `:try`/`:catch`/`:finally`,
//     `:return`, `:reject`, `:throw`, `:set_state` and `:log`/`:level`; steps and
//     controls read `_step`, `_item` and the routine's `_state`. The result is
//     {status success|error|reject, success, response, error}.
//   - Authorize is Lowdefy's createAuthorize (public true/false, roles); Pages and
//     Endpoints list what a user may open and call.
//
// Secrets come only from Options.Secrets (SecretsFromEnv reads LOWDEFY_SECRET_*
// variables); only the server parser's `_secret` reads them. Results carry the
// connection's response and nothing of the connection's properties.
//
// Where this differs from Lowdefy:
//
//   - Error messages that leave the server have every secret value (4 characters or
//     longer, raw and JSON-escaped) replaced by "[secret]". Lowdefy sends operator and
//     connection error messages as they are, and an operator error's "Received:" part
//     can hold a resolved secret.
//   - Connection and request properties are checked by the connection type's Check
//     functions instead of the plugins' JSON schemas (AJV); messages differ.
//   - The endpoint semantics are those of Lowdefy 4.x (2024–2025) read from the
//     lowdefy/lowdefy repository, not a published package: `:reject` answers with
//     status reject and the evaluated value as the response; `:throw` is an error whose
//     message is the value; `:while` is an error; a panic in a connection is a
//     RequestError instead of a crash. While a routine runs, only one branch evaluates
//     at a time, as on JavaScript's single thread; connections of `:parallel` branches
//     run at the same time.
//   - Logging goes to log/slog: debug records per call and step, `:log` at its level.
package server
