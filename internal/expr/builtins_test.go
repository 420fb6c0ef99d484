package expr

import (
	"context"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The built-in attacks are tested by their outcome, never by how long they took: every
// attack is sized to need at least ten times its limits on any machine, so it must come back
// as a limit error, and the legal cases run under limits they stay far inside.
//
// attackLimits are the limits of the attacks whose work is bounded only by the limits: an
// uninterrupted run would loop over 2^32 elements or build gigabytes, minutes of work on any
// machine, so a run that returns at all within unboundedReturn was interrupted.
var attackLimits = Limits{Timeout: 250 * time.Millisecond, MaxMemory: 32 << 20}

// boundedLimits are the limits of the attacks marked bounded: their result stays under the
// size limits, so an uninterrupted run ends on its own, after 100 ms to a few seconds here
// (a tenth of that on a much faster machine). The time limit is far below that, so they too
// must come back as a limit error.
var boundedLimits = Limits{Timeout: time.Millisecond, MaxMemory: 32 << 20}

// legalLimits are the limits of the legal cases: far more time than they need on any machine
// (under -race, on a loaded one), and the default memory limit. The attacks the size limits
// must refuse (tooLarge) run with this time limit too, so that on a slow machine the time
// limit cannot stop them before the refusal.
var legalLimits = Limits{Timeout: 2 * time.Minute}

// evalLegal runs each case, a subtest, under legalLimits and compares its result with want.
func evalLegal(t *testing.T, tests []struct {
	name, src string
	want      any
}) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mustCompile(t, tt.src).Eval(context.Background(), nil, legalLimits)
			if err != nil {
				t.Fatalf("Eval: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// unboundedReturn is how soon an interrupted attack must return: a wide margin over the
// quarter second of attackLimits, only to catch a built-in the limits never interrupted.
const unboundedReturn = 30 * time.Second

// Outcomes an attack may end with.
const (
	tooLarge = "expression result too large" // refused up front or on a running budget
	stopped  = "stopped"                     // the time or memory limit, whichever first
	bounded  = "bounded"                     // stopped, run under boundedLimits
)

// builtinAttacks are expressions whose work happens inside native built-ins, which the
// VM's interrupt cannot stop between instructions. want is tooLarge, stopped, bounded, a
// message the error must contain, or "" for a legal case that must succeed.
var builtinAttacks = []struct{ name, src, want string }{
	// Strings built by joining.
	{"join sparse", `new Array(2e8).join('xy')`, tooLarge},
	{"join sparse-empty-separator", `new Array(2**32 - 1).join('')`, stopped},
	{"join shared-string", `const s = 'x'.repeat(1e6); const a = []; for (let i = 0; i < 200; i++) a.push(s); a.join('')`, tooLarge},
	{"join nested", `const a = new Array(1e4).fill('x'); const b = []; for (let i = 0; i < 1e4; i++) b.push(a); b.join()`, bounded},
	{"toString", `const s = 'x'.repeat(1e6); const a = []; for (let i = 0; i < 200; i++) a.push(s); a.toString()`, tooLarge},
	{"toLocaleString", `const s = 'x'.repeat(1e6); const a = []; for (let i = 0; i < 200; i++) a.push(s); a.toLocaleString()`, tooLarge},
	{"String sparse", `String(new Array(2e8))`, tooLarge},

	// JSON.stringify.
	{"JSON.stringify shared-string", `const s = 'x'.repeat(1e6); const a = []; for (let i = 0; i < 200; i++) a.push(s); JSON.stringify(a)`, tooLarge},
	{"JSON.stringify sparse", `JSON.stringify(new Array(1e8))`, tooLarge},
	{"JSON.stringify sparse-under-the-size-limit", `JSON.stringify(new Array(1.5e6))`, bounded},
	{"JSON.stringify indent", `let o = {}; for (let i = 0; i < 5000; i++) o = {a: o}; JSON.stringify(o, null, 10)`, tooLarge},
	{"JSON.stringify replacer", `const s = 'x'.repeat(1e6); JSON.stringify(new Array(200).fill(0), (k, v) => k === '' ? v : s)`, tooLarge},
	{"JSON.stringify escapes", `JSON.stringify('\u0001'.repeat(4e6))`, tooLarge},

	// String methods.
	{"String concat", `const s = 'x'.repeat(1e6); const a = []; for (let i = 0; i < 200; i++) a.push(s); ''.concat(...a)`, tooLarge},
	{"repeat", `'ab'.repeat(2**30)`, tooLarge},
	{"padStart", `''.padStart(2**31, 'ab')`, tooLarge},
	{"padEnd", `'x'.padEnd(2**31)`, tooLarge},
	{"replace regexp", `'x'.repeat(1e6).replace(/x/g, 'yyyyyyyyyyyy')`, bounded},
	{"replace function", `const s = 'x'.repeat(1e6); 'abc'.repeat(1000).replace(/a/g, () => s)`, tooLarge},
	{"replace suffix-pattern", `'x'.repeat(1e5).replace(/x/g, "$'")`, tooLarge},
	{"replace many-matches", `'x'.repeat(8e6).replace(/x/g, '')`, bounded},
	{"replaceAll suffix-pattern", `'x'.repeat(1e5).replaceAll('x', "$'")`, tooLarge},
	{"replaceAll string", `'x'.repeat(1e6).replaceAll('x', 'yyyyyyyyyyyy')`, tooLarge},
	{"replaceAll many-matches", `'x'.repeat(8e6).replaceAll('x', 'y')`, bounded},
	{"split empty-separator", `'x'.repeat(8e6).split('')`, tooLarge},
	{"split string", `'x,'.repeat(4e6).split(',')`, tooLarge},
	{"split String object", `'x'.repeat(8e6).split(new String(''))`, tooLarge},
	{"replaceAll String object", `'x'.repeat(1e6).replaceAll(new String('x'), 'yyyyyyyyyyyy')`, tooLarge},
	{"split regexp", `'x,'.repeat(4e6).split(/,/)`, bounded},
	{"match global", `'x'.repeat(8e6).match(/x/g)`, bounded},
	{"fromCharCode apply", `String.fromCharCode.apply(null, {length: 1e8})`, tooLarge},
	{"String.raw", `String.raw({raw: {length: 2**40}})`, stopped},
	{"String.raw empty-segments", `String.raw({raw: {length: 2**53 - 1, get 0() { return '' }}})`, stopped},
	{"String.raw long-segments", `const s = 'x'.repeat(4e6); String.raw({raw: [s, s, s]}, s, s)`, tooLarge},

	// The keys of a string as an object: one per character, made in one native call.
	{"Object.keys string", `Object.keys('x'.repeat(8e6))`, tooLarge},
	{"Object.values string", `Object.values('x'.repeat(8e6))`, tooLarge},
	{"Object.entries string", `Object.entries('x'.repeat(8e6))`, tooLarge},
	{"Object.assign string", `Object.assign({}, 'x'.repeat(8e6))`, tooLarge},
	{"Object.getOwnPropertyNames string", `Object.getOwnPropertyNames('x'.repeat(8e6))`, tooLarge},
	{"Object.getOwnPropertyDescriptors string", `Object.getOwnPropertyDescriptors('x'.repeat(8e6))`, tooLarge},
	{"Reflect.ownKeys String", `Reflect.ownKeys(new String('x'.repeat(8e6)))`, tooLarge},
	{"Object.freeze String", `Object.freeze(new String('x'.repeat(8e6)))`, tooLarge},
	{"spread string into object", `({...'x'.repeat(8e6)})`, tooLarge},
	{"for-in string", `let n = 0; for (const k in 'x'.repeat(8e6)) n++; n`, tooLarge},
	{"JSON.stringify String keys", `JSON.stringify({...new String('x'.repeat(8e6))})`, tooLarge},

	// Text built-ins whose result is many times their input.
	{"normalize", `'\uFDFA'.repeat(8e6).normalize('NFKD')`, stopped},
	{"normalize under-the-size-limit", `'\uFDFA'.repeat(4e5).normalize('NFKD')`, bounded},
	{"toUpperCase", `'ΐ'.repeat(8e6).toUpperCase()`, tooLarge},
	{"toLowerCase", `'İ'.repeat(8e6).toLowerCase()`, tooLarge},
	{"toLocaleUpperCase", `'ß'.repeat(8e6).toLocaleUpperCase()`, tooLarge},
	{"encodeURIComponent", `encodeURIComponent('\uFFFF'.repeat(8e6))`, tooLarge},
	{"encodeURI", `encodeURI('é'.repeat(8e6))`, tooLarge},
	{"escape", `escape('\uFFFF'.repeat(8e6))`, tooLarge},
	{"fromCodePoint spread", `String.fromCodePoint(...'x'.repeat(8e6))`, bounded},

	// Function.prototype.apply and Reflect with huge argument lists.
	{"apply array-like", `Math.max.apply(null, {length: 5e7})`, tooLarge},
	{"apply sparse", `Math.max.apply(null, new Array(5e7))`, tooLarge},
	{"apply under-the-size-limit", `Math.max.apply(null, new Array(4e5))`, ""},
	{"Reflect.apply", `Reflect.apply(Math.max, null, {length: 5e7})`, tooLarge},
	{"Reflect.construct", `Reflect.construct(Array, {length: 5e7})`, tooLarge},

	// Array methods iterating `length` of huge sparse arrays.
	{"indexOf", `new Array(2**32 - 1).indexOf(1)`, stopped},
	{"lastIndexOf", `new Array(2**32 - 1).lastIndexOf(1)`, stopped},
	{"includes", `new Array(2**32 - 1).includes(1)`, stopped},
	{"forEach", `new Array(2**32 - 1).forEach(x => x)`, stopped},
	{"map", `new Array(2**32 - 1).map(x => x)`, stopped},
	{"filter", `new Array(2**32 - 1).filter(x => x)`, stopped},
	{"some", `new Array(2**32 - 1).some(x => x)`, stopped},
	{"every", `new Array(2**32 - 1).every(x => x)`, stopped},
	{"find", `({length: 2**53 - 1, __proto__: Array.prototype}).find(x => x)`, stopped},
	{"findLastIndex", `new Array(2**32 - 1).findLastIndex(x => x)`, stopped},
	{"reduce", `new Array(2**32 - 1).reduce((a, b) => a, 0)`, stopped},
	{"reduceRight", `new Array(2**32 - 1).reduceRight((a, b) => a, 0)`, stopped},
	{"fill", `new Array(1e9).fill(0)`, tooLarge},
	{"fill under-the-size-limit", `new Array(1e5).fill(0).length`, ""},
	{"sort", `new Array(2**32 - 1).sort()`, stopped},
	{"sort dense-default-order", `const a = []; for (let i = 0; i < 1e6; i++) a.push(i); a.sort()`, bounded},
	{"reverse", `new Array(2**32 - 1).reverse()`, stopped},
	{"slice", `new Array(2**32 - 1).slice()`, stopped},
	{"splice", `new Array(2**32 - 1).splice(0, 1)`, stopped},
	{"shift", `new Array(2**32 - 1).shift()`, stopped},
	{"unshift", `new Array(2**32 - 2).unshift(1)`, stopped},
	{"Array concat", `new Array(2**32 - 1).concat([1])`, stopped},
	{"copyWithin", `new Array(2**32 - 1).copyWithin(0, 1)`, stopped},
	{"flat", `new Array(2**32 - 1).flat()`, stopped},
	{"flat nested", `[new Array(2**32 - 1)].flat()`, stopped},
	{"flatMap", `[1].flatMap(() => new Array(2**32 - 1))`, stopped},
	{"toReversed", `new Array(2**32 - 1).toReversed()`, tooLarge},
	{"toSorted", `new Array(2**32 - 1).toSorted()`, tooLarge},
	{"toSpliced", `new Array(2**32 - 1).toSpliced(0, 0)`, tooLarge},
	{"with", `new Array(2**32 - 1).with(0, 1)`, tooLarge},
	{"Array.from array-like", `Array.from({length: 1e9})`, tooLarge},
	{"Array.from iterator", `Array.from(new Array(2**32 - 1).keys())`, stopped},
	{"spread", `[...new Array(2**32 - 1)]`, stopped},
	{"spread string", `[...'x'.repeat(8e6)]`, bounded},
}

// TestOperatorLoops grows strings with the VM's own operators: the interrupt stops the
// loops between instructions, the string limit stops a concatenation that would pass it
// (see TestStringDoublingHitsMemoryLimit), and the memory watchdog stops the loops that
// keep many smaller strings once it sees the live heap over the limit. Which comes first
// depends on the machine, so only the kind of error is checked here; the figures are
// logged.
func TestOperatorLoops(t *testing.T) {
	for _, a := range []struct{ name, src string }{
		{"concatenation", `let s = 'x'; for (let i = 0; i < 40; i++) s = s + s; s.length`},
		{"template literal", "let s = 'x'; for (let i = 0; i < 40; i++) s = `${s}${s}`; s.length"},
		{"concatenation in small steps", `let s = ''; for (;;) s += 'xxxxxxxxxxxxxxxx'`},
		{"array of strings", `const a = []; for (let i = 0; ; i++) a.push('item ' + i)`},
	} {
		t.Run(a.name, func(t *testing.T) {
			p := mustCompile(t, a.src)
			var err error
			m := measure(func() { _, err = p.Eval(context.Background(), nil, attackLimits) })
			t.Logf("%v, live heap +%s, heap +%s: %v", m.elapsed.Round(time.Millisecond), formatBytes(m.live), formatBytes(m.heap), err)
			if e := asError(t, err); e.Kind != KindTimeout && e.Kind != KindMemory {
				t.Errorf("got %v (kind %v), want the time or memory limit", err, e.Kind)
			}
		})
	}
}

// TestBuiltinLimits runs every attack and checks its outcome: the expected error (the
// limit, or the size refusal), or success for the legal cases. It also checks, with wide
// margins, that the limits held while it ran: an unbounded attack returned within
// unboundedReturn (a built-in the limits cannot interrupt runs for minutes), and neither the
// live heap nor the heap, garbage included, grew by more than a large multiple of the memory
// limit (an unguarded built-in builds gigabytes). The memory watchdog samples every few
// milliseconds and may sample late on a loaded machine, letting an attack allocate on
// meanwhile; the margins (4 and 16 times the limit) leave room for that and still catch a
// limit that does not hold.
func TestBuiltinLimits(t *testing.T) {
	for _, a := range builtinAttacks {
		t.Run(a.name, func(t *testing.T) {
			p := mustCompile(t, a.src)
			lim := attackLimits
			switch a.want {
			case stopped:
			case bounded:
				lim = boundedLimits
			default:
				// A legal case, or an attack the size limits must refuse: the size refusal
				// must come first however slow the machine, so the time limit is generous.
				lim = Limits{Timeout: legalLimits.Timeout, MaxMemory: attackLimits.MaxMemory}
			}
			var err error
			m := measure(func() { _, err = p.Eval(context.Background(), nil, lim) })
			t.Logf("%v, live heap +%s, heap +%s: %v", m.elapsed.Round(time.Millisecond), formatBytes(m.live), formatBytes(m.heap), err)
			maxMemory := lim.withDefaults().MaxMemory
			if m.elapsed > unboundedReturn && a.want == stopped {
				t.Errorf("took %v: the limits (%v) did not interrupt it", m.elapsed, lim.Timeout)
			}
			if m.live > 4*maxMemory {
				t.Errorf("the live heap grew by %s, more than 4 times the memory limit of %s", formatBytes(m.live), formatBytes(maxMemory))
			}
			if m.heap > 16*maxMemory {
				t.Errorf("the heap grew by %s, more than 16 times the memory limit of %s", formatBytes(m.heap), formatBytes(maxMemory))
			}
			switch a.want {
			case "":
				if err != nil {
					t.Errorf("got %v, want success", err)
				}
			case stopped, bounded:
				if e := asError(t, err); e.Kind != KindTimeout && e.Kind != KindMemory && !strings.Contains(e.Msg, tooLarge) {
					t.Errorf("got %v (kind %v), want the time or memory limit", err, e.Kind)
				}
			default:
				if e := asError(t, err); !strings.Contains(e.Msg, a.want) {
					t.Errorf("got %v (kind %v), want an error containing %q", err, e.Kind, a.want)
				}
			}
		})
	}
}

// measurement is what measure observed.
type measurement struct {
	elapsed time.Duration
	live    int64 // peak growth of the live heap, as measured by the collections during the run
	heap    int64 // peak growth of the heap's object bytes, garbage included
}

// measure runs f after a collection, sampling the heap figures every millisecond.
func measure(f func()) measurement {
	runtime.GC()
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	read := func() (int64, int64) {
		metrics.Read(samples)
		return int64(samples[0].Value.Uint64()), int64(samples[1].Value.Uint64())
	}
	baseHeap, baseLive := read()
	var m measurement
	var mu sync.Mutex
	sample := func() {
		heap, live := read()
		mu.Lock()
		m.heap, m.live = max(m.heap, heap-baseHeap), max(m.live, live-baseLive)
		mu.Unlock()
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				sample()
			}
		}
	})
	start := time.Now()
	f()
	m.elapsed = time.Since(start)
	close(done)
	wg.Wait()
	sample()
	return m
}

// TestBuiltinsUnderTheLimits checks that the guarded built-ins still give the standard
// results, on both sides of the size where they switch to interruptible implementations.
func TestBuiltinsUnderTheLimits(t *testing.T) {
	tests := []struct {
		name, src string
		want      any
	}{
		{"join", `[1, null, undefined, "a", [2, [3]]].join("-")`, "1---a-2,3"},
		{"join default separator", `[1, 2].join()`, "1,2"},
		{"join cycle", `const a = [1]; a.push(a); a.join()`, "1,"},
		{"join array-like", `Array.prototype.join.call({length: 3, 0: "a", 2: "c"}, "+")`, "a++c"},
		{"join unicode", `["é", "\ud83d\ude00", "\ud800"].join("·").length`, int64(6)},
		{"toString", `String([1, [2, 3]])`, "1,2,3"},
		{"toLocaleString", `[1, "a", null].toLocaleString()`, "1,a,"},
		{"JSON.stringify", `JSON.stringify({a: [1, "x", null, undefined, () => 1], b: {toJSON() { return 2 }}, c: new Date(0)})`,
			`{"a":[1,"x",null,null,null],"b":2,"c":"1970-01-01T00:00:00.000Z"}`},
		{"JSON.stringify indent", `JSON.stringify({a: [1]}, null, 2)`, "{\n  \"a\": [\n    1\n  ]\n}"},
		{"JSON.stringify replacer function", `JSON.stringify({a: 1, b: 2}, function (k, v) { return k === "a" ? undefined : v })`, `{"b":2}`},
		{"JSON.stringify replacer list", `JSON.stringify({b: 1, a: {b: 3, c: 4}, c: 2}, ["a", "b"])`, `{"a":{"b":3},"b":1}`},
		{"JSON.stringify replacer list with numbers", `JSON.stringify({1: "x", 2: "y"}, [2])`, `{"2":"y"}`},
		{"JSON.stringify undefined", `JSON.stringify(undefined) === undefined`, true},
		{"JSON.stringify escapes", `JSON.stringify("\u0001\"\ud800")`, `"\u0001\"\ud800"`},
		{"JSON.stringify cycle", `const o = {}; o.o = o; try { JSON.stringify(o) } catch (e) { e.name }`, "TypeError"},
		{"concat", `"a".concat(1, null, [2, 3])`, "a1null2,3"},
		{"replace", `"a-b-c".replace("-", "+")`, "a+b-c"},
		{"replace patterns", "'abc'.replace('b', \"[$&|$`|$'|$$|$1]\")", "a[b|a|c|$|$1]c"},
		{"replace regexp patterns", `'john smith'.replace(/(\w+)\s(\w+)/, '$2, $1')`, "smith, john"},
		{"replace named groups", `'2024-05'.replace(/(?<y>\d+)-(?<m>\d+)/, '$<m>/$<y>')`, "05/2024"},
		{"replace function", `'a1b2'.replace(/\d/g, (d, i) => '<' + d + i + '>')`, "a<11>b<23>"},
		{"replaceAll", `'a.b.c'.replaceAll('.', '$&$&')`, "a..b..c"},
		{"replaceAll empty", `'ab'.replaceAll('', '-')`, "-a-b-"},
		{"split", `'a,b,,c'.split(',')`, []any{"a", "b", "", "c"}},
		{"split limit", `'a,b,c'.split(',', 2)`, []any{"a", "b"}},
		{"split regexp captures", `'a1b2c'.split(/(\d)/)`, []any{"a", "1", "b", "2", "c"}},
		{"match global", `'a1b22'.match(/\d+/g)`, []any{"1", "22"}},
		{"repeat pad", `'ab'.repeat(2) + '7'.padStart(3, '0') + 'x'.padEnd(3, '-')`, "abab007x--"},
		{"apply", `Math.max.apply(null, [1, 5, 3]) + Reflect.apply(Math.min, null, [4, 2])`, int64(7)},
		{"Reflect.construct", `Reflect.construct(Array, [1, 2]).length`, int64(2)},
		{"fromCharCode spread", `String.fromCharCode(...[104, 105])`, "hi"},
		{"String.raw", "[String.raw`a${1}b${'x'}c\\n`, String.raw({raw: ['a', 'b', 'c']}, 1, 2, 3, 4), String.raw({raw: 'xyz'}, '-', '+'), String.raw({raw: {length: 0}})]",
			[]any{"a1bxc\\n", "a1b2c", "x-y+z", ""}},
		{"String.raw errors", `[() => String.raw(), () => String.raw({})].map(f => { try { f() } catch (e) { return e.name } })`, []any{"TypeError", "TypeError"}},
		{"keys of a string", `const s = new String('ab'); s.x = 1; [Object.keys('abc'), Object.entries('ab'), Object.keys(s), Object.getOwnPropertyNames(s), ({...'hi'})[1], Object.assign({}, 'ab')[0]]`,
			[]any{[]any{"0", "1", "2"}, []any{[]any{"0", "a"}, []any{"1", "b"}}, []any{"0", "1", "x"}, []any{"0", "1", "length", "x"}, "i", "a"}},
		{"normalize", `['\u0041\u030A'.normalize(), '\u00C5'.normalize('NFD').length, 'ﬁ'.normalize('NFKC'), 'abc'.normalize('NFKD'),
			(() => { try { 'x'.normalize('nope') } catch (e) { return e.name } })()]`, []any{"Å", int64(2), "fi", "abc", "RangeError"}},
		{"large normalize", `const u = 'é\u0301 ﬁ \uFDFA Å\u030A x '; ['NFC', 'NFD', 'NFKC', 'NFKD'].map(f => u.repeat(40000).normalize(f) === u.normalize(f).repeat(40000))`,
			[]any{true, true, true, true}},
		{"large normalize ASCII", `'ab'.repeat(2e5).normalize('NFKD').length`, int64(400000)},
		{"large case mapping", `['ß'.repeat(3e6).toUpperCase().length, 'ÀB'.repeat(1.5e6).toLowerCase().slice(0, 4), 'ς'.repeat(3e6).toUpperCase()[5]]`,
			[]any{int64(6000000), "àbàb", "Σ"}},
		{"large URI encoding", `[encodeURIComponent('a b'.repeat(1e6)).length, encodeURI('a/b'.repeat(1e6)).length, escape('a b'.repeat(1e6)).length,
			encodeURIComponent('é\ud83d\ude00'), (() => { try { encodeURIComponent('\ud83d\ude00'.repeat(2e6) + '\ud800') } catch (e) { return e.name } })(),
			(() => { try { encodeURI('\udc00'.repeat(3e6)) } catch (e) { return e.name } })()]`,
			[]any{int64(5000000), int64(3000000), int64(5000000), "%C3%A9%F0%9F%98%80", "URIError", "URIError"}},
		{"keys of a string at the limit", `let n = 0; for (const k in 'x'.repeat(65536)) n++; [n, Object.keys('y'.repeat(65536)).length]`, []any{int64(65536), int64(65536)}},
		{"sort default", `[10, 9, 1, undefined, , "b", "a"].sort()`, []any{int64(1), int64(10), int64(9), "a", "b", nil, nil}},
		{"sort comparator", `[3, 1, 2].sort((a, b) => b - a)`, []any{int64(3), int64(2), int64(1)}},
		{"array methods", `const a = [1, 2, 3, 2];
			[a.indexOf(2), a.lastIndexOf(2), a.includes(3), a.map(x => x * 2).filter(x => x > 2).reduce((s, x) => s + x, 0),
			 a.slice(1, 3), [...a].reverse(), a.concat([9], 8), [[1, [2]], 3].flat(Infinity), a.toSorted(), a.with(0, 7),
			 a.toSpliced(1, 2), Array.from({length: 2}, (_, i) => i), new Array(3).fill(0), [1, 2, 3, 4].copyWithin(0, 2)]`,
			[]any{int64(1), int64(3), true, int64(14), []any{int64(2), int64(3)}, []any{int64(2), int64(3), int64(2), int64(1)},
				[]any{int64(1), int64(2), int64(3), int64(2), int64(9), int64(8)}, []any{int64(1), int64(2), int64(3)},
				[]any{int64(1), int64(2), int64(2), int64(3)}, []any{int64(7), int64(2), int64(3), int64(2)},
				[]any{int64(1), int64(2)}, []any{int64(0), int64(1)}, []any{int64(0), int64(0), int64(0)},
				[]any{int64(3), int64(4), int64(3), int64(4)}}},
		// Past the size where the interruptible implementations take over.
		{"large indexOf", `const a = new Array(1e5); a[99999] = 7; [a.indexOf(7), a.lastIndexOf(7), a.includes(7), a.indexOf(8), a.includes(undefined)]`,
			[]any{int64(99999), int64(99999), true, int64(-1), true}},
		{"large callbacks", `const a = new Array(1e5); a[5] = 1; a[99998] = 2; let n = 0; a.forEach(() => n++);
			[n, a.map(x => x * 2)[99998], a.filter(x => x).length, a.some(x => x === 2), a.every(x => x > 0), a.find(x => x === undefined),
			 a.findIndex(x => x === 2), a.findLast(x => x), a.findLastIndex(x => x === 1), a.reduce((s, x) => s + x), a.reduceRight((s, x) => s + x, 10)]`,
			[]any{int64(2), int64(4), int64(2), true, true, nil, int64(99998), int64(2), int64(5), int64(3), int64(13)}},
		{"large sort", `const a = []; for (let i = 0; i < 1e5; i++) a.push((i * 7919) % 1e5); a[3] = undefined; delete a[4];
			a.sort((x, y) => x - y); [a[0], a[1], a[99997], a[99998], 99999 in a, a.length]`,
			[]any{int64(0), int64(1), int64(99999), nil, false, int64(100000)}},
		{"large default sort", `const a = []; for (let i = 0; i < 1e5; i++) a.push(i); a.sort(); [a[0], a[1], a[2], a[99999]]`,
			[]any{int64(0), int64(1), int64(10), int64(99999)}},
		{"large reverse slice splice", `const a = []; for (let i = 0; i < 1e5; i++) a.push(i); a.reverse();
			const s = a.slice(-3); const d = a.splice(1, 2, 'x'); [a[0], a[1], a[2], a.length, s, d]`,
			[]any{int64(99999), "x", int64(99996), int64(99999), []any{int64(2), int64(1), int64(0)}, []any{int64(99998), int64(99997)}}},
		{"large shift unshift", `const a = []; for (let i = 0; i < 1e5; i++) a.push(i); const f = a.shift(); a.unshift('a', 'b'); [f, a[0], a[2], a.length]`,
			[]any{int64(0), "a", int64(1), int64(100001)}},
		{"large concat fill copyWithin", `const a = new Array(1e5).fill(1, 10, 20); const c = a.concat([2], 3); c.copyWithin(0, 10, 12);
			[c.length, c[0], c[1], c[2], c[100000], c[100001], 25 in c]`,
			[]any{int64(100002), int64(1), int64(1), nil, int64(2), int64(3), false}},
		{"large flat", `const a = new Array(1e5); a[7] = [1, [2]]; a.flat(2)`, []any{int64(1), int64(2)}},
		{"large to-methods", `const a = []; for (let i = 0; i < 1e5; i++) a.push(i);
			const r = a.toReversed(), s = a.toSorted((x, y) => y - x), w = a.with(-1, 'w'), p = a.toSpliced(0, 99998);
			[r[0], s[0], w[99999], p, a[0]]`,
			[]any{int64(99999), int64(99999), "w", []any{int64(99998), int64(99999)}, int64(0)}},
		{"large Array.from", `Array.from({length: 1e5, 5: 'x'})[5]`, "x"},
		{"large apply", `const a = new Array(1e5).fill(1); a[500] = 9; Math.max.apply(null, a)`, int64(9)},
		{"large join", `new Array(1e5).fill('ab').join('').length`, int64(200000)},
		{"large split", `const p = 'a,'.repeat(1e5).split(','); [p.length, p[0], p[100000]]`, []any{int64(100001), "a", ""}},
		{"large split empty", `const p = 'ab'.repeat(1e5).split(''); [p.length, p[0], p[199999]]`, []any{int64(200000), "a", "b"}},
		{"large split regexp", `const p = 'a1b22'.repeat(6e4).split(/(\d+)/); [p.length, p[0], p[1], p[3], p[4]]`,
			[]any{int64(240001), "a", "1", "22", "a"}},
		{"large match", `'a1b22'.repeat(6e4).match(/\d+/g).length`, int64(120000)},
		{"large replace", `'a1b22'.repeat(6e4).replace(/(\d)\d*/g, '<$1>').slice(0, 12)`, "a<1>b<2>a<1>"},
		{"large replaceAll", `'ab'.repeat(1.5e5).replaceAll('b', '$&$&').length`, int64(450000)},
		{"large replace function", `'ab'.repeat(1.5e5).replace(/b/g, (m, i) => i === 1 ? 'B' : m).slice(0, 4)`, "aBab"},
		{"large JSON.stringify", `JSON.stringify(new Array(1e5).fill({a: 1})).length`, int64(800001)},
		{"large spread", `[...'ab'.repeat(1e5)].length`, int64(200000)},
	}
	evalLegal(t, tests)
}
