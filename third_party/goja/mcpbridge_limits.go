package goja

// mcpbridge patch: limits a sandbox needs that goja cannot otherwise enforce, because they
// sit inside one VM instruction or one native match. See MCPBRIDGE-PATCH.md.

import (
	"errors"
	"strings"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// ErrRegexpMatchTimeout is the error [RegexpMatchLimit.Failed] receives for a match on the
// backtracking engine that ran out of the time [RegexpMatchLimit.Left] gave it, or that
// was not started because Left gave none.
var ErrRegexpMatchTimeout = errors.New("regular expression match ran out of time")

// RegexpMatchLimit bounds the matches a runtime runs on the backtracking engine (see
// [Runtime.SetRegexpMatchLimit]).
type RegexpMatchLimit struct {
	// Left returns how long the next match may run. It is called before every match (and
	// before every next match of a global search), from the goroutine running the script.
	Left func() time.Duration
	// Failed is called when a match did not complete, with [ErrRegexpMatchTimeout] when it
	// ran out of time, regexp2.ErrBacktrackingStackLimit when it needed more backtracking
	// stack than regexp2 allows, or another error of regexp2. It may panic with a Value to
	// throw it into the running script; if it returns, the match counts as no match, as
	// every failed match does without a limit. It is optional.
	Failed func(err error)
}

// SetRegexpMatchLimit bounds every match this runtime runs on regexp2, goja's backtracking
// engine: the patterns RE2 cannot run (backreferences, lookaround), and matches of the other
// patterns that do not start at the beginning of the string (a global or sticky RegExp with
// a lastIndex, split). Such a match runs inside one native call, so [Runtime.Interrupt] does
// not stop it; without a limit it runs until it ends or until regexp2.DefaultMatchTimeout
// (forever by default, read when the pattern is compiled). With a limit, each match gets the
// time l.Left returns (regexp2 checks it against a clock that ticks every
// regexp2.SetTimeoutCheckPeriod, 100 ms by default). The zero RegexpMatchLimit removes it.
func (r *Runtime) SetRegexpMatchLimit(l RegexpMatchLimit) {
	r.regexpLimit = l
}

// SetMaxStringLength bounds the strings the + operator (and +=) and template literals
// build: when the result would hold more than max UTF-16 code units, the operation throws
// tooLong(length) instead of building it (a RangeError "Invalid string length" when tooLong
// is nil). max <= 0 removes the limit, the default. Built-in methods are not covered.
func (r *Runtime) SetMaxStringLength(max int64, tooLong func(length int64) Value) {
	r.maxStringLen, r.stringTooLong = max, tooLong
}

// checkStringLength throws when a string of length code units is over the limit.
func (r *Runtime) checkStringLength(length int64) {
	if length <= r.maxStringLen {
		return
	}
	if r.stringTooLong != nil {
		panic(r.stringTooLong(length))
	}
	panic(r.newError(r.getRangeError(), "Invalid string length"))
}

// limitedRegexp2 returns rx, or a copy of it bounded by the time the limit leaves. A
// Regexp is read-only after compilation but for MatchTimeout, which regexp2 reads at each
// match; the copy shares everything else (its runner pool included) with rx.
func (r *Runtime) limitedRegexp2(rx *regexp2.Regexp) (*regexp2.Regexp, error) {
	if r == nil || r.regexpLimit.Left == nil {
		return rx, nil
	}
	left := r.regexpLimit.Left()
	if left <= 0 {
		return nil, ErrRegexpMatchTimeout
	}
	limited := *rx
	limited.MatchTimeout = left
	return &limited, nil
}

// findNextRegexp2Match is rx.FindNextMatch(m) under the limit.
func (r *Runtime) findNextRegexp2Match(rx *regexp2.Regexp, m *regexp2.Match) (*regexp2.Match, error) {
	limited, err := r.limitedRegexp2(rx)
	if err != nil {
		return nil, err
	}
	return limited.FindNextMatch(m)
}

// regexpMatchFailed reports a match that did not complete to the limit's Failed.
func (r *Runtime) regexpMatchFailed(err error) {
	if r == nil || r.regexpLimit.Failed == nil {
		return
	}
	// regexp2 reports a timeout with an unexported error whose text starts so.
	if !errors.Is(err, ErrRegexpMatchTimeout) && strings.HasPrefix(err.Error(), "match timeout") {
		err = ErrRegexpMatchTimeout
	}
	r.regexpLimit.Failed(err)
}

// SetMaxStringKeys bounds the index keys of String objects that are enumerated: listing the
// own keys of a String object (Object.keys, values, entries, assign, getOwnPropertyNames,
// getOwnPropertyDescriptors, Reflect.ownKeys, freeze, object spread, for-in, … of a
// string) whose string is longer than max throws tooMany(length) (a RangeError when
// tooMany is nil) instead of making a key for each of its characters, in one native call.
// max <= 0 removes the limit, the default.
func (r *Runtime) SetMaxStringKeys(max int64, tooMany func(length int64) Value) {
	r.maxStringKeys, r.tooManyKeys = max, tooMany
}

// checkIndexKeys throws when the index keys of s are too many to enumerate.
func (s *stringObject) checkIndexKeys() {
	if s.val == nil || s.val.runtime == nil {
		return
	}
	r := s.val.runtime
	if r.maxStringKeys <= 0 || int64(s.length) <= r.maxStringKeys {
		return
	}
	if r.tooManyKeys != nil {
		panic(r.tooManyKeys(int64(s.length)))
	}
	panic(r.newError(r.getRangeError(), "Too many string index keys to enumerate"))
}
