// Package lazy holds package-level values that are built on first use and cost nothing at
// start-up.
//
// A package-level map literal, a table built by a function call, or even
// `var x = sync.OnceValue(f)` runs code when the program starts: the package's init maps its
// code pages and allocates, whether or not the process ever uses the value. A [Value] or a
// [Regexp] declared with a composite literal is static data instead — the compiler lays it out
// in the binary, and nothing runs until the first Get:
//
//	// operatorNames is built on first use.
//	var operatorNames = lazy.Value[map[string]bool]{New: func() map[string]bool {
//		return map[string]bool{"_and": true, "_or": true}
//	}}
//
//	var identRE = lazy.Regexp{Expr: `^[A-Za-z_$][A-Za-z0-9_$]*$`}
//
//	ok := operatorNames.Get()[name] && identRE.Get().MatchString(key)
//
// Get behaves as the function sync.OnceValue returns: New runs once, the first Get waits
// for it and every later Get returns its result; if New panics, every Get panics with the
// same value. A Value must not be copied after first use. After the first call, Get costs
// an atomic load, so a Value may sit on a hot path.
package lazy

import (
	"regexp"
	"sync"
)

// Value is a value of type T built by New on first use.
type Value[T any] struct {
	// New builds the value. It runs once, on the first call to Get.
	New func() T

	once  sync.Once
	valid bool // the build returned
	p     any  // what the build panicked with
	v     T
}

// Get returns the value, building it with New on the first call.
func (l *Value[T]) Get() T { return l.get(l.New) }

// get returns the value, building it with build on the first call. Like sync.OnceValue, it
// records what build panicked with and panics with it again on every call.
func (l *Value[T]) get(build func() T) T {
	l.once.Do(func() {
		defer func() {
			l.p = recover()
			if !l.valid {
				panic(l.p)
			}
		}()
		l.v = build()
		l.valid = true
	})
	if !l.valid {
		panic(l.p)
	}
	return l.v
}

// Regexp is a regular expression compiled on first use.
type Regexp struct {
	// Expr is the expression, in the syntax of package regexp. It must compile: Get panics
	// as regexp.MustCompile does if it does not.
	Expr string

	re Value[*regexp.Regexp]
}

// Get returns the compiled expression, compiling it on the first call.
func (r *Regexp) Get() *regexp.Regexp { return r.re.get(r.compile) }

func (r *Regexp) compile() *regexp.Regexp { return regexp.MustCompile(r.Expr) }
