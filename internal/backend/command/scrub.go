package command

import (
	"cmp"
	"os"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/secret"
)

// A scrubber removes secret values from what a command printed before it reaches a client.
//
// This package has a minimal implementation of its own (valueScrubber); the shared
// secret.Scrubber being written in internal/secret can take its place: Scrub is its String
// method, and ScrubCut is its Cut with the edges given as CutStart and CutEnd.
type scrubber interface {
	// Scrub replaces every whole occurrence of a secret with a placeholder naming it.
	Scrub(s string) string
	// ScrubCut is Scrub for a text that is part of a longer output cut at its start and/or
	// its end: it also removes what is left of a secret that the cut went through, when that
	// piece is at least minPiece bytes long. Cut first, then scrub once.
	ScrubCut(s string, cutStart, cutEnd bool) string
}

// minPiece is the shortest piece of a secret that ScrubCut removes at a cut edge: shorter
// pieces say little about a secret, and removing them would eat into ordinary output.
const minPiece = 4

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

// valueScrubber replaces secret values as they are (no encoded forms). A nil
// *valueScrubber scrubs nothing.
type valueScrubber struct {
	values []string // longest first
	r      *strings.Replacer
}

// newScrubber returns a scrubber of the values in secrets (value -> label); each whole
// occurrence becomes "[label]".
func newScrubber(secrets map[string]string) *valueScrubber {
	if len(secrets) == 0 {
		return nil
	}
	sc := &valueScrubber{}
	for v := range secrets {
		sc.values = append(sc.values, v)
	}
	// Longest first, so that a secret holding another is replaced whole.
	slices.SortFunc(sc.values, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	pairs := make([]string, 0, 2*len(sc.values))
	for _, v := range sc.values {
		pairs = append(pairs, v, "["+secrets[v]+"]")
	}
	sc.r = strings.NewReplacer(pairs...)
	return sc
}

// Scrub implements scrubber.
func (sc *valueScrubber) Scrub(s string) string {
	if sc == nil {
		return s
	}
	return sc.r.Replace(s)
}

// ScrubCut implements scrubber. The pieces at the edges are found in the text as it is, and
// a whole secret that reaches into one is removed with it, so no part of it is left.
func (sc *valueScrubber) ScrubCut(s string, cutStart, cutEnd bool) string {
	if sc == nil {
		return s
	}
	lo, hi := 0, len(s) // what is kept
	if cutEnd {
		hi -= sc.longestEdge(s, true)
	}
	if cutStart {
		lo = sc.longestEdge(s, false)
	}
	if cutStart && cutEnd && len(s) >= minPiece {
		for _, v := range sc.values {
			if strings.Contains(v, s) {
				return "" // all of it lies inside a secret
			}
		}
	}
	for changed := true; changed && lo < hi; {
		changed = false
		for _, v := range sc.values {
			for i := strings.Index(s, v); i >= 0; {
				end := i + len(v)
				if i < hi && hi < end {
					hi, changed = i, true
				}
				if i < lo && lo < end {
					lo, changed = end, true
				}
				next := strings.Index(s[i+1:], v)
				if next < 0 {
					break
				}
				i += 1 + next
			}
		}
	}
	if lo >= hi {
		return ""
	}
	return sc.Scrub(s[lo:hi])
}

// longestEdge returns the length of the longest piece of at least minPiece bytes at the end
// (atEnd) or the start of s that begins (respectively ends) a secret, or 0.
func (sc *valueScrubber) longestEdge(s string, atEnd bool) int {
	best := 0
	for _, v := range sc.values {
		for n := min(len(v)-1, len(s)); n >= minPiece && n > best; n-- {
			if atEnd && strings.HasSuffix(s, v[:n]) || !atEnd && strings.HasPrefix(s, v[len(v)-n:]) {
				best = n
				break
			}
		}
	}
	return best
}

var _ scrubber = (*valueScrubber)(nil)
