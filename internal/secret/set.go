package secret

import (
	"strings"
	"sync"
	"sync/atomic"
)

// A Set gathers every secret a process holds, whoever resolved it, so that one [Scrubber]
// removes them all from whatever leaves the process: a secret one server resolved is
// scrubbed from the output of every other server too. Secrets are added as they are
// resolved and never removed (a value a replaced definition held may still sit in a child
// process or a cache).
//
// A Set is safe for concurrent use. Its zero value is an empty set; a nil *Set holds
// nothing and ignores additions.
type Set struct {
	mu    sync.Mutex
	known map[string]bool
	list  []Secret
	sc    atomic.Pointer[Scrubber]
}

// Add adds a secret value with the label that names it in its placeholder ("secret NAME").
// An empty value, or one already held, is ignored.
func (s *Set) Add(value, label string) {
	if s == nil || value == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.known[value] {
		return
	}
	if s.known == nil {
		s.known = map[string]bool{}
	}
	s.known[value] = true
	s.list = append(s.list, Secret{Value: value, Label: label})
	s.sc.Store(NewLabeledScrubber(s.list...))
}

// AddEnviron adds the secrets held in an environment (os.Environ's form): the values of
// secret:NAME references (MCPBRIDGE_SECRET_NAME) and of the variables named in others,
// labelled "secret NAME" and by the label others maps them to.
func (s *Set) AddEnviron(environ []string, others map[string]string) {
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case value == "":
		case strings.HasPrefix(name, EnvPrefix):
			s.Add(value, "secret "+strings.TrimPrefix(name, EnvPrefix))
		case others[name] != "":
			s.Add(value, others[name])
		}
	}
}

// Len returns the number of secrets held.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.list)
}

// Scrubber returns a scrubber of every secret held now (nil, which scrubs nothing, when
// the set is empty). It is cheap: the scrubber is built when a secret is added.
func (s *Set) Scrubber() *Scrubber {
	if s == nil {
		return nil
	}
	return s.sc.Load()
}

// ResolveInto is [Resolve] that also adds the value to set (when not nil), so that it is
// scrubbed wherever set's scrubber applies.
func ResolveInto(set *Set, dir, where, ref string) (value, label string, err error) {
	value, label, err = Resolve(dir, where, ref)
	if err == nil {
		set.Add(value, label)
	}
	return value, label, err
}
