// Package openapi imports OpenAPI 3.0 and 3.1 descriptions (YAML or JSON) and turns every
// operation into a tool definition of a `kind: http` server: a JSON Schema for the tool's
// arguments plus declarative mappings that place each argument in the request path, query,
// headers, cookies or body.
//
// The importer is defensive by design. It resolves local `$ref`s (components, nested refs,
// refs with sibling keywords), cuts recursive schemas after one level of inlining, bounds the
// size of every generated schema, and reports what it could not import as warnings that name
// the operation instead of failing or panicking. Swagger 2.0 documents are rejected with a
// message that says to convert them to OpenAPI 3 first.
//
// Output conventions:
//
//   - Tools appear in document order (paths in the order written, operations in the order
//     written inside each path item), so generated configs read like the API reference and
//     re-importing the same document gives byte-identical output.
//   - A tool is named after its operationId (sanitised to [A-Za-z0-9_.-], at most 64
//     characters, made unique with a numeric suffix) or, without one, after the method and
//     path (`get_pets_id` for `GET /pets/{id}`).
//   - Argument names are valid tool property names: header and cookie names are lower-cased
//     with '-' turned into '_' (`X-Request-Id` → `x_request_id`); other names keep their case
//     and have characters outside [A-Za-z0-9_.-] replaced by '_'.
//   - A request body that is a JSON (or form) object with properties contributes one argument
//     per property, mapped with `in: body` and the property name as `field`. Any other body
//     (an array, a scalar, a free-form object, a oneOf, or an object whose property names
//     contain '.') becomes a single argument named `body` mapped with an empty `field`, which
//     means "the whole request body".
package openapi
