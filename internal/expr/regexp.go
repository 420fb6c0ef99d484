package expr

import (
	"math"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// RegexpMatchTimeout bounds one match of a regular expression on the backtracking engine (see
// LimitRegexpMatches).
const RegexpMatchTimeout = 2 * time.Second

var regexpLimitOnce sync.Once

// LimitRegexpMatches bounds every regular expression match goja runs on regexp2: a match
// that takes longer than RegexpMatchTimeout fails and counts as no match. goja runs the
// patterns RE2 cannot (backreferences, lookaround) on regexp2, which backtracks and does not
// see goja's interrupt, so without this a hostile pattern could hang the process.
//
// It sets regexp2.DefaultMatchTimeout, which is process-wide, once and only if it still is
// regexp2's "forever" default. regexp2 reads it when it compiles a pattern, so it must be set
// before goja compiles the first one, and not while goja compiles one: this package calls
// LimitRegexpMatches before it compiles a program or makes a runtime, and every other package
// that uses goja must do the same (the Lowdefy operators do). It is not done by an init, so
// that a process that never runs JavaScript never runs this code.
func LimitRegexpMatches() {
	regexpLimitOnce.Do(func() {
		if regexp2.DefaultMatchTimeout == time.Duration(math.MaxInt64) {
			regexp2.DefaultMatchTimeout = RegexpMatchTimeout
		}
	})
}
