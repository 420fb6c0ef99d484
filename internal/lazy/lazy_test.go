package lazy

import (
	"sync"
	"testing"
)

var counted int

var table = Value[map[string]int]{New: func() map[string]int {
	counted++
	return map[string]int{"a": 1}
}}

var word = Regexp{Expr: `^\w+$`}

func TestValueBuildsOnce(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if table.Get()["a"] != 1 {
				t.Error("wrong value")
			}
		})
	}
	wg.Wait()
	if counted != 1 {
		t.Errorf("New ran %d times, want 1", counted)
	}
}

func TestRegexp(t *testing.T) {
	if !word.Get().MatchString("abc") || word.Get().MatchString("a b") {
		t.Error("wrong match")
	}
	if word.Get() != word.Get() {
		t.Error("compiled twice")
	}
}

func TestPanicRepeats(t *testing.T) {
	bad := Regexp{Expr: `(`}
	for i := range 2 {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("call %d: no panic", i)
				}
			}()
			bad.Get()
		}()
	}
	calls := 0
	v := Value[int]{New: func() int { calls++; panic("boom") }}
	for range 2 {
		func() {
			defer func() {
				if p := recover(); p != "boom" {
					t.Errorf("panic %v, want boom", p)
				}
			}()
			v.Get()
		}()
	}
	if calls != 1 {
		t.Errorf("New ran %d times, want 1", calls)
	}
}

func TestGetDoesNotAllocate(t *testing.T) {
	table.Get()
	word.Get()
	if n := testing.AllocsPerRun(100, func() { table.Get(); word.Get() }); n != 0 {
		t.Errorf("Get allocates %v times, want 0", n)
	}
}
