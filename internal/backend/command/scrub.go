package command

import (
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/secret"
)

// A scrubber removes secret values from what a command printed before it reaches a client
// (valueScrubber, on secret.Scrubber).
type scrubber interface {
	// Scrub replaces every whole occurrence of a secret with a placeholder naming it.
	Scrub(s string) string
	// ScrubCut is Scrub for a text that is part of a longer output cut at its start and/or
	// its end: it also removes what is left of a secret that the cut went through, when that
	// piece is at least minPiece bytes long. Cut first, then scrub once.
	ScrubCut(s string, cutStart, cutEnd bool) string
}

// adminKeyEnv is the environment variable holding the gateway's admin key (internal/cli).
const adminKeyEnv = "MCPBRIDGE_ADMIN_KEY"

// heldSecrets returns the secrets the gateway holds in its environment, by value: the
// values of secret:NAME references (MCPBRIDGE_SECRET_NAME) and the admin key. Each is
// labelled for its placeholder.
func heldSecrets() map[string]string {
	held := map[string]string{}
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case value == "":
		case strings.HasPrefix(name, secret.EnvPrefix):
			held[value] = "secret " + strings.TrimPrefix(name, secret.EnvPrefix)
		case name == adminKeyEnv:
			held[value] = "admin key"
		}
	}
	return held
}

// valueScrubber is a scrubber on secret.Scrubber (whole values and their encodings, at cut
// edges too). A nil *valueScrubber scrubs nothing.
type valueScrubber struct {
	sc *secret.Scrubber
}

// newScrubber returns a scrubber of the values in secrets (value -> label); each whole
// occurrence becomes "[label]".
func newScrubber(secrets map[string]string) *valueScrubber {
	if len(secrets) == 0 {
		return nil
	}
	values := slices.Sorted(maps.Keys(secrets))
	list := make([]secret.Secret, 0, len(values))
	for _, v := range values {
		list = append(list, secret.Secret{Value: v, Label: secrets[v]})
	}
	return &valueScrubber{sc: secret.NewLabeledScrubber(list...)}
}

// Scrub implements scrubber.
func (v *valueScrubber) Scrub(s string) string {
	if v == nil {
		return s
	}
	return v.sc.String(s)
}

// ScrubCut implements scrubber.
func (v *valueScrubber) ScrubCut(s string, cutStart, cutEnd bool) string {
	if v == nil {
		return s
	}
	var edges secret.Edge
	if cutStart {
		edges |= secret.CutStart
	}
	if cutEnd {
		edges |= secret.CutEnd
	}
	return string(v.sc.Cut([]byte(s), edges))
}
