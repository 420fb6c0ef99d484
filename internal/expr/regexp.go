package expr

import (
	"errors"
	"math"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
)

// RegexpMatchTimeout bounds one match of a regular expression on the backtracking engine in
// runtimes that do not bound it themselves (see LimitRegexpMatches). The sandbox's runtimes
// bound every match by the time left to the evaluation instead.
const RegexpMatchTimeout = 2 * time.Second

// regexpClockPeriod is how often regexp2's clock, against which it checks a match's time
// limit, ticks: a match runs at most about two periods past its limit. regexp2's default,
// 100 ms, would let a match run up to a fifth of a second past a 100 ms limit.
const regexpClockPeriod = 5 * time.Millisecond

var regexpLimitOnce sync.Once

// LimitRegexpMatches prepares regexp2, goja's backtracking engine, for untrusted patterns.
// goja runs the patterns RE2 cannot (backreferences, lookaround), and matches of other
// patterns that start past the beginning of the string, on regexp2, inside one native call
// that goja's interrupt does not stop. It makes regexp2's clock tick every 5 ms, so that a
// match's time limit takes effect within a few milliseconds, and it bounds every match of a
// runtime that sets no limit of its own (goja.Runtime.SetRegexpMatchLimit, which this
// package's sandbox sets) by RegexpMatchTimeout: such a match that takes longer fails and
// counts as no match.
//
// Both settings are process-wide variables of regexp2 that it reads without
// synchronisation, so they are set once, before goja compiles the first pattern or runs
// the first match: this package calls LimitRegexpMatches before it compiles a program or
// makes a runtime, and every other package that uses goja must do the same (the Lowdefy
// operators do). DefaultMatchTimeout is only set if it still is regexp2's "forever"
// default. It is not done by an init, so that a process that never runs JavaScript never
// runs this code.
func LimitRegexpMatches() {
	regexpLimitOnce.Do(func() {
		regexp2.SetTimeoutCheckPeriod(regexpClockPeriod)
		if regexp2.DefaultMatchTimeout == time.Duration(math.MaxInt64) {
			regexp2.DefaultMatchTimeout = RegexpMatchTimeout
		}
	})
}

// limitRegexpMatches bounds every regexp2 match of e's runtime by the time left to the
// current evaluation: a match that runs out of it ends the evaluation with the time limit,
// as the interrupt ends a script. (Outside an evaluation, while the runtime is prepared,
// a match would get RegexpMatchTimeout.)
func (e *env) limitRegexpMatches() {
	e.rt.SetRegexpMatchLimit(goja.RegexpMatchLimit{
		Left: func() time.Duration {
			if e.deadline.IsZero() {
				return RegexpMatchTimeout
			}
			return time.Until(e.deadline)
		},
		Failed: e.regexpMatchFailed,
	})
}

// regexpMatchFailed handles a regexp2 match that did not complete. Out of time, it stops
// the evaluation with its time limit (or the context's deadline, when that came first).
// Past regexp2's backtracking stack (100,000 entries), it throws a RangeError: goja would
// have said "no match", a wrong answer.
func (e *env) regexpMatchFailed(err error) {
	switch {
	case errors.Is(err, goja.ErrRegexpMatchTimeout):
		if e.stopStack == nil {
			e.stopStack = e.rt.CaptureCallStack(0, nil)
		}
		e.interrupt(e.deadlineCause())
		// What is thrown never reaches the program: the interrupt is pending (see checkStop).
		panic(e.rt.NewTypeError("evaluation interrupted"))
	case errors.Is(err, regexp2.ErrBacktrackingStackLimit):
		panic(e.rangeError("regular expression too complex: a match needed more than regexp2's backtracking stack of 100,000 entries (a pattern with backreferences or lookaround, or a repeated group, on a long string); simplify the pattern or match a shorter string"))
	default:
		panic(e.rangeError("regular expression match failed: " + err.Error()))
	}
}
