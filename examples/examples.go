// Package examples holds the runnable example configurations, embedded in the binary.
package examples

import _ "embed"

// Quickstart is examples/quickstart.yaml, served by `mcpbridge serve` when no config is given.
//
//go:embed quickstart.yaml
var Quickstart []byte
