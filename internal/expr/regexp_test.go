package expr

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// regexpAttacks are regular expressions that backtrack exponentially on goja's backtracking
// engine (regexp2), on inputs sized so that one match runs for hours on any machine: 60
// characters for (a|aa)*\1c (about 0.5 s at 26 characters here, and 1.3 times longer per
// character), 40 for the others (several seconds at 24, doubling every character or two).
// regexp2 runs a match inside one native call, which the interrupt does not reach.
//
// Each must come back as the time limit. limit is the time limit: most run under a quarter
// second; the ones marked "past the old cap" run under 3 s, longer than the 2 s that
// regexp2.DefaultMatchTimeout gives a match in runtimes without a limit of their own (see
// LimitRegexpMatches), so that a match bounded only by that cap would end as "no match",
// a wrong result, and not as the limit.
var regexpAttacks = []struct {
	name, src string
	limit     time.Duration
}{
	{"exec backreference", `/(a|aa)*\1c/.exec('a'.repeat(60))`, 250 * time.Millisecond},
	{"exec backreference past the old cap", `/(a|aa)*\1c/.exec('a'.repeat(60)) === null ? 'no match' : 'match'`, 3 * time.Second},
	{"test past the old cap", `/^(a+)+\1b/.test('a'.repeat(40)) ? 'match' : 'no match'`, 3 * time.Second},
	{"exec unicode", `/(a|aa)*\1c/u.exec('a'.repeat(60))`, 250 * time.Millisecond},
	{"lookahead", `/(?=(a+)+b)/.test('a'.repeat(40))`, 250 * time.Millisecond},
	{"match", `'a'.repeat(60).match(/(a|aa)*\1c/)`, 250 * time.Millisecond},
	{"match global", `'a'.repeat(60).match(/(a|aa)*\1c/g)`, 250 * time.Millisecond},
	{"matchAll", `[...'a'.repeat(60).matchAll(/(a|aa)*\1c/g)]`, 250 * time.Millisecond},
	{"replace", `'a'.repeat(60).replace(/(a|aa)*\1c/g, 'x')`, 250 * time.Millisecond},
	{"replace function", `'a'.repeat(60).replace(/(a|aa)*\1c/, m => m)`, 250 * time.Millisecond},
	{"replaceAll", `'a'.repeat(60).replaceAll(/(a|aa)*\1c/g, 'x')`, 250 * time.Millisecond},
	{"search", `'a'.repeat(60).search(/(a|aa)*\1c/)`, 250 * time.Millisecond},
	// split tries a sticky match at every position: one regexp2 match per character.
	{"split lookahead", `'a'.repeat(40).split(/(?=(a+)+b)/)`, 250 * time.Millisecond},
	{"split backreference past the old cap", `'a'.repeat(40).split(/(a+)+\1b/).length`, 3 * time.Second},
	// RE2 runs (a+)+b in linear time, but goja runs a match that starts past the beginning
	// of the string (lastIndex, sticky, split) on regexp2.
	{"lastIndex of a pattern RE2 can run", `const r = /(a+)+b/g; r.lastIndex = 1; r.exec('a'.repeat(40))`, 250 * time.Millisecond},
	{"sticky pattern RE2 can run", `const r = /(a+)+b/y; r.lastIndex = 1; r.test('c' + 'a'.repeat(40))`, 250 * time.Millisecond},
	{"long string", `('a'.repeat(40) + ' ' + 'b'.repeat(300000)).replace(/(a+)+\1c/g, '')`, 250 * time.Millisecond},
	{"caught", `try { /(a|aa)*\1c/.exec('a'.repeat(60)) } catch (e) { 'caught' }`, 250 * time.Millisecond},
	{"in a loop", `let n = 0; for (;;) { if (/(a|aa)*\1c/.test('a'.repeat(60))) n++ }`, 250 * time.Millisecond},
}

// TestRegexBacktrackingIsInterrupted runs each regexpAttacks case and checks the outcome:
// the time limit, and the runtime works for the next evaluation. A limit that did not
// reach the match would leave it running for hours: the 30 s bound only catches that.
func TestRegexBacktrackingIsInterrupted(t *testing.T) {
	for _, a := range regexpAttacks {
		t.Run(a.name, func(t *testing.T) {
			p := mustCompile(t, a.src)
			start := time.Now()
			got, err := p.Eval(context.Background(), nil, Limits{Timeout: a.limit})
			elapsed := time.Since(start)
			t.Logf("%v: %v, %v", elapsed.Round(time.Millisecond), got, err)
			if err == nil {
				t.Fatalf("got %v, want the time limit", got)
			}
			e := asError(t, err)
			if e.Kind != KindTimeout || !strings.Contains(e.Msg, "exceeded the time limit of "+a.limit.String()) || e.Line != 1 {
				t.Errorf("got %v (kind %v, line %d), want the time limit at line 1", err, e.Kind, e.Line)
			}
			if elapsed > unboundedReturn {
				t.Errorf("took %v: the time limit of %v did not stop the match", elapsed, a.limit)
			}
			if got, err := mustCompile(t, `/(\w)\1/.exec('hello')[0]`).Eval(context.Background(), nil, testLimits); err != nil || got != "ll" {
				t.Errorf("next evaluation: got %v, %v", got, err)
			}
		})
	}
}

// TestRegexBacktrackingStopsAtContextDeadline: a context deadline earlier than the time
// limit stops a match too, reported as the context's deadline.
func TestRegexBacktrackingStopsAtContextDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := mustCompile(t, `/(a|aa)*\1c/.exec('a'.repeat(60))`).Eval(ctx, nil, Limits{Timeout: time.Hour})
	if e := asError(t, err); e.Kind != KindTimeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v (kind %v), want the context deadline", err, e.Kind)
	}
	if d := time.Since(start); d > unboundedReturn {
		t.Errorf("took %v: the context deadline did not stop the match", d)
	}
}

// TestRegexBackreferencesStillWork: patterns that run on the backtracking engine give the
// results they gave before matches were bounded (the same as V8's).
func TestRegexBackreferencesStillWork(t *testing.T) {
	tests := []struct {
		name, src string
		want      any
	}{
		{"exec", `const m = /(\w)\1/.exec('hello'); [m[0], m[1], m.index, m.input]`, []any{"ll", "l", int64(2), "hello"}},
		{"test", `[/(\w+) \1/.test('bye bye'), /(\w+) \1/.test('bye hi')]`, []any{true, false}},
		{"named backreference", `const m = /(?<w>\w+)-\k<w>/.exec('x ab-ab'); [m[0], m.groups.w, m.index]`, []any{"ab-ab", "ab", int64(2)}},
		{"replace global", `'aabbcd'.replace(/(\w)\1/g, '[$1]')`, "[a][b]cd"},
		{"replace function", `'aabbcd'.replace(/(\w)\1/g, (m, c, i) => c.toUpperCase() + i)`, "A0B2cd"},
		{"match global", `'xx yy z zz'.match(/(\w)\1/g)`, []any{"xx", "yy", "zz"}},
		{"matchAll", `[...'a1a b2b c3d'.matchAll(/(\w)\d\1/g)].map(m => m[0] + '@' + m.index)`, []any{"a1a@0", "b2b@4"}},
		{"search", `'abcabc'.search(/(bc)a\1/)`, int64(1)},
		{"split lookahead", `'oneTwoThree'.split(/(?=[A-Z])/)`, []any{"one", "Two", "Three"}},
		{"split backreference captures", `'a11b22c'.split(/(\d)\1/)`, []any{"a", "1", "b", "2", "c"}},
		{"lookbehind", `'$42 and €17'.match(/(?<=\$)\d+/)[0]`, "42"},
		{"negative lookahead", `'foo1 foo2 bar3'.match(/\b(?!foo)\w+/g)`, []any{"bar3"}},
		{"password rule", `[/^(?=.*\d)(?=.*[a-z]).{8,}$/.test('abc12345'), /^(?=.*\d)(?=.*[a-z]).{8,}$/.test('abcdefgh')]`, []any{true, false}},
		{"global lastIndex", `const r = /(a)\1/g; const s = 'aa-aa-a'; const out = []; let m; while ((m = r.exec(s)) !== null) out.push(m.index + ':' + r.lastIndex); out`,
			[]any{"0:2", "3:5"}},
		{"global lastIndex of a pattern RE2 can run", `const r = /a+/g; r.lastIndex = 2; const m = r.exec('aaaa ba'); [m[0], m.index, r.lastIndex]`, []any{"aa", int64(2), int64(4)}},
		{"sticky", `const r = /(\d)\1/y; [r.test('1122'), r.lastIndex, r.test('1122'), r.lastIndex, r.test('1122'), r.lastIndex]`,
			[]any{true, int64(2), true, int64(4), false, int64(0)}},
		{"unicode", `const m = /(\u{1F600})\1/u.exec('x😀😀y'); [m.index, m[1].length]`, []any{int64(1), int64(2)}},
		{"ignore case", `/(ab)\1/i.test('abAB')`, true},
		{"multiline", `'a\nbb\ncc'.match(/^(\w)\1$/gm)`, []any{"bb", "cc"}},
		{"no match", `/(a)\1/.exec('abab')`, nil},
		{"undefined capture", `const m = /(a)|(b)\2/.exec('bb'); [m[0], m[1] === undefined, m[2]]`, []any{"bb", true, "b"}},
		{"long input", `('ab'.repeat(100000) + 'cc').match(/(c)\1/).index`, int64(200000)},
	}
	evalLegal(t, tests)
}

// TestRegexBacktrackingStackIsAnError: a match that needs more than regexp2's backtracking
// stack used to count as no match, a wrong answer; it is a RangeError now, which the
// program may catch.
func TestRegexBacktrackingStackIsAnError(t *testing.T) {
	src := `const s = 'ab'.repeat(200000) + 'c'; /^(?:(a)|b)*\1c$/.test(s)`
	_, err := mustCompile(t, src).Eval(context.Background(), nil, legalLimits)
	e := asError(t, err)
	if e.Kind != KindRuntime || e.Name != "RangeError" || !strings.Contains(e.Msg, "regular expression too complex") {
		t.Errorf("got %v (kind %v), want a RangeError saying the pattern is too complex", err, e.Kind)
	}
}
