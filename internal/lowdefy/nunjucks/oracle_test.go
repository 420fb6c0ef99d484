package nunjucks

import (
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/tools/jslibs-oracle/oracletest"
)

// corpusVars is the context for every differential case.
func corpusVars() map[string]any {
	return map[string]any{
		"name": "Ada Lovelace", "n": 42.0, "f": 3.14159, "neg": -7.5, "zero": 0.0, "t": true, "no": false, "nil": nil,
		"html": "<b>\"Tom\" & 'Jerry'</b>", "empty": "", "list": []any{3.0, 1.0, 2.0}, "words": []any{"b", "A", "c"},
		"user":  map[string]any{"name": "Bob", "age": 30.0, "tags": []any{"x", "y"}, "address": map[string]any{"city": "Paris"}},
		"users": []any{map[string]any{"name": "a", "role": "admin", "n": 1.0}, map[string]any{"name": "b", "role": "user", "n": 2.0}, map[string]any{"name": "c", "role": "admin", "n": 3.0, "active": true}},
		"obj":   map[string]any{"a": 1.0, "b": "two", "c": []any{1.0}},
		"pairs": []any{[]any{"k1", "v1"}, []any{"k2", "v2"}},
		"text":  "line one\nline two\r\nline three",
		"long":  "The quick brown fox jumps over the lazy dog",
		"num":   "12.5abc", "ints": "0x1A", "spaces": "  padded  ", "mixed": []any{1.0, "a", nil, true},
		"date": "2024-03-05T14:07:09.123Z", "ts": 1700000000000.0,
	}
}

// corpus lists templates rendered by both implementations.
var corpus = []string{
	"Hello {{ name }}!", "{{ n }} {{ f }} {{ neg }} {{ zero }} {{ t }} {{ no }} {{ nil }} {{ missing }}",
	"{{ user.name }} {{ user['age'] }} {{ user.tags[1] }} {{ user.address.city }} {{ user.nope.deeper }}",
	"{{ list }} {{ obj }} {{ mixed }} {{ list.length }} {{ name.length }} {{ name[0] }}",
	"{{ 1 + 2 }} {{ 7 - 10 }} {{ 2 * 3.5 }} {{ 7 / 2 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 2 ** 10 }}",
	"{{ 1 / 0 }} {{ -1 / 0 }} {{ 0 / 0 }} {{ 0.1 + 0.2 }} {{ 1e21 * 10 }} {{ 0.0000001 }} {{ 123456789012 }}",
	"{{ 'a' + 1 }} {{ 1 + '2' }} {{ 'x' ~ 1 ~ true }} {{ missing ~ 'x' }} {{ nil ~ 'y' }} {{ list ~ '' }} {{ t + 1 }} {{ nil + 1 }}",
	"{{ 1 == '1' }} {{ 1 === '1' }} {{ nil == missing }} {{ nil === missing }} {{ 'b' > 'a' }} {{ 2 < 10 }} {{ '2' < '10' }} {{ 1 != 2 }} {{ 1 !== 1 }}",
	"{{ t and 'yes' }} {{ no or 'fallback' }} {{ not t }} {{ not no }} {{ zero or empty or 'last' }} {{ n and zero }}",
	"{{ 'a' in 'cat' }} {{ 2 in list }} {{ 'a' in obj }} {{ 'z' not in obj }} {{ 5 in list }}",
	"{{ 'yes' if t else 'no' }} {{ 'yes' if no else 'no' }} [{{ 'only' if no }}]",
	"{{ html }} {{ html | safe }} {{ html | e }} {{ html | escape | safe }} {{ html | forceescape }}",
	"{{ name | upper }} {{ name | lower }} {{ 'hELLO wORLD' | capitalize }} {{ 'hello big world' | title }} {{ spaces | trim }}.",
	"{{ missing | default('dflt') }} {{ nil | default('dflt') }} {{ empty | default('dflt', true) }} {{ zero | d('z', true) }} {{ name | d('x') }}",
	"{{ list | length }} {{ name | length }} {{ obj | length }} {{ missing | length }} {{ nil | length }}",
	"{{ words | join(', ') }} {{ list | join }} {{ users | join('-', 'name') }}",
	"{{ list | first }} {{ list | last }} {{ name | first }} {{ name | last }}",
	"{{ 'a-b-a' | replace('a', 'x') }} {{ 'aaa' | replace('a', 'b', 2) }} {{ 'abc' | replace('', '-') }} {{ 123 | replace(2, 9) }}",
	"{{ f | round }} {{ f | round(2) }} {{ f | round(1, 'floor') }} {{ f | round(1, 'ceil') }} {{ 2.5 | round }} {{ -2.5 | round }} {{ neg | round }}",
	"{{ '42' | int }} {{ num | int }} {{ 'x' | int }} {{ 'x' | int(7) }} {{ 3.9 | int }} {{ ints | int }} {{ '1A' | int(0, 16) }}",
	"{{ num | float }} {{ 'abc' | float }} {{ 'abc' | float(1.5) }} {{ '1e3' | float }} {{ '.5' | float }}",
	"{{ neg | abs }} {{ -3 | abs }} {{ '-4' | abs }}",
	"{{ user | dump }} {{ list | dump }} {{ name | dump }} {{ nil | dump }} {{ users | dump(2) | safe }}",
	"{{ obj | dump | safe }} {{ mixed | dump | safe }} {{ t | dump }}",
	"{% for x in name | list %}{{ x }}|{% endfor %} {{ obj | list | dump | safe }}",
	"{{ list | sort }} {{ words | sort }} {{ words | sort(true) }} {{ words | sort(false, true) }} {{ users | sort(true, false, 'name') | join(',', 'name') }}",
	"{{ list | reverse }} {{ name | reverse }} {{ words | reverse | join }}",
	"{{ long | truncate(10) }}|{{ long | truncate(10, true) }}|{{ long | truncate(10, false, '…') }}|{{ 'short' | truncate(10) }}|{{ long | truncate }}",
	"{{ '<p>Hello <b>World</b></p>  <!-- c -->  x' | striptags }}|{{ '<p>a</p>\n\n\n\n<p>b</p>' | striptags(true) }}",
	"{{ 'a b&c/d?e=f' | urlencode }} {{ obj | urlencode }} {{ pairs | urlencode }}",
	"{{ 'a\nb\nc' | indent }}|{{ 'a\nb' | indent(2, true) }}|{{ '' | indent }}",
	"{% for row in [1,2,3,4,5] | batch(2) %}{{ row }};{% endfor %} {% for row in [1,2,3] | batch(2, 'x') %}{{ row }};{% endfor %}",
	"{{ users | selectattr('active') | length }} {{ users | rejectattr('active') | join(',', 'name') }}",
	"{% for role, items in users | groupby('role') %}{{ role }}={{ items | join(',', 'name') }};{% endfor %}",
	"{{ list | sum }} {{ users | sum('n') }} {{ users | sum('n', 10) }}",
	"{{ 42 | string }} {{ list | string }} {{ t | string }}",
	"{{ long | wordcount }} {{ '' | wordcount }} {{ 'a-b c_d' | wordcount }}",
	"{{ text | nl2br }} {{ nil | nl2br }}",
	"{{ [1,2,3,4,5,6] | select('odd') }} {{ [1,2,3,4] | reject('even') }} {{ [0,1,'',2] | select }} {{ [3,6,9,10] | select('divisibleby', 3) }}",
	"{{ [1,2,3,4,5,6,7] | slice(3) | dump }} {{ 'ab' | center(6) }}|{{ 'abc' | center(8) }}|",
	"{{ obj | dictsort | dump }} {{ {b: 2, a: 1, C: 0} | dictsort(false, 'value') | dump }}",
	"{% if t %}T{% endif %}{% if no %}F{% else %}E{% endif %}{% if zero %}0{% elif n > 40 %}big{% elseif n %}x{% else %}none{% endif %}",
	"{% if list %}L{% endif %}{% if [] %}A{% endif %}{% if {} %}O{% endif %}{% if empty %}S{% endif %}{% if missing %}M{% endif %}",
	"{% for x in list %}{{ loop.index }}:{{ x }}{% if not loop.last %},{% endif %}{% endfor %}",
	"{% for x in list %}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }} {% endfor %}",
	"{% for k, v in obj %}{{ k }}={{ v }};{% endfor %}",
	"{% for a, b in pairs %}{{ a }}->{{ b }} {% endfor %}",
	"{% for x in [] %}no{% else %}empty{% endfor %}{% for x in missing %}no{% else %}undef{% endfor %}{% for x in obj %}X{% else %}objsingle{% endfor %}",
	"{% for u in users %}{% for t in u.tags or ['-'] %}{{ u.name }}{{ t }}{% endfor %}{% endfor %}",
	"{% for x in 'abc' %}{{ x }}.{% endfor %}{% for x in 5 %}num{% else %}five{% endfor %}",
	"{% set x = 5 %}{{ x }}{% set y, z = 'same' %}{{ y }}{{ z }}{% set x = x + 1 %}{{ x }}",
	"{% set count = 0 %}{% for i in [1,2,3] %}{% set count = count + i %}{% endfor %}{{ count }}",
	"{% for i in [1,2] %}{% set inner = i %}{% endfor %}[{{ inner }}]",
	"{% set block %}Hello <b>{{ name }}</b>{% endset %}{{ block }}",
	"{% raw %}{{ not rendered }} {% if %}{% endraw %} after",
	"{# a comment #}x{# multi\nline #}y",
	"a  {%- if t %}  b  {%- endif %}  c\n  {{- name -}}  \n d {#- c -#} e",
	"<ul>\n{% for x in list -%}\n  <li>{{ x }}</li>\n{% endfor -%}\n</ul>",
	"{% macro greet(who, greeting='Hi') %}{{ greeting }}, {{ who }}!{% endmacro %}{{ greet('Ann') }} {{ greet('Bo', 'Yo') }} {{ greet(greeting='Hey', who='Cy') }}",
	"{% macro li(x) %}<li>{{ x }}</li>{% endmacro %}{% for x in ['<a>'] %}{{ li(x) }}{% endfor %}",
	"{% macro fact(n) %}{% if n <= 1 %}1{% else %}{{ n * fact(n - 1) }}{% endif %}{% endmacro %}{{ fact(5) }}",
	"{% filter upper %}shout {{ name }}{% endfilter %}",
	"{% switch n %}{% case 1 %}one{% case 42 %}answer{% default %}other{% endswitch %}|{% switch 'z' %}{% case 'a' %}A{% default %}D{% endswitch %}",
	"{{ range(5) }} {{ range(2, 5) }} {{ range(10, 0, -3) }} {% for i in range(3) %}{{ i }}{% endfor %}",
	"{{ n is defined }} {{ missing is defined }} {{ missing is undefined }} {{ nil is none }} {{ n is number }} {{ name is string }} {{ n is odd }} {{ n is even }} {{ n is divisibleby(7) }}",
	"{{ n is not odd }} {{ list is iterable }} {{ obj is mapping }} {{ 'abc' is lower }} {{ 'ABC' is upper }} {{ n is equalto(42) }} {{ n is gt(3) }}",
	"{{ name.toUpperCase() }} {{ 'a,b,c'.split(',') | join('|') }} {{ name.replace('Ada', 'Augusta') }} {{ list.join('-') }} {{ name.indexOf('Love') }} {{ f.toFixed(2) }}",
	"{{ name.slice(0, 3) }} {{ name.substring(4) }} {{ name.startsWith('Ada') }} {{ list.indexOf(2) }} {{ list.concat([9]) }} {{ name.includes('x') }}",
	"{{ [1, 'two', [3]] }} {{ {a: 1}.a }} {{ {'k': 'v'}['k'] }} {{ (1 + 2) * 3 }} {{ (1, 2) }} {{ - 3 }} {{ +'4' }}",
	"{{ 'multi' 'part' }} {{ \"dq 'single'\" }} {{ 'esc \\' q' }} {{ 'tab\\tnl\\n' }}",
	"{{ date | date('YYYY-MM-DD') }} {{ date | date('dddd, MMMM Do YYYY, h:mm:ss a') }} {{ ts | date('LLL') }} {{ nil | date }} {{ date | date('toISOString') }}",
	"{{ date | date }} {{ ts | date('X x') }} {{ date | date('[Today is] dddd') }} {{ list | date }}",
	"{{ 5 | upper }}", "{{ missing() }}", "{{ name() }}", "{{ 1 in 2 }}", "{{ x | nosuchfilter }}", "{% nosuchtag %}",
	"{% if t %}unclosed", "{{ 'unterminated }}", "{{ }}", "{% for %}{% endfor %}", "{{ a.b.c.d }}", "{{ user.tags.length }}",
	"{{ nil.x }}", "{{ missing | first }}", "{{ [] | first }}", "{{ nil | string }}", "{{ 'x' | join }}",
	"{{ users[1].name }} {{ users[-1] }} {{ users['1']['role'] }} {{ obj.c[0] }}",
	"{{ {} | dump }} {{ [] | dump }} {{ [nil, missing] | dump }} {{ {a: missing, b: nil} | dump }}",
	"{{ 3 > 2 > 1 }} {{ 1 < 2 < 3 }} {{ 'abc' < 'abd' }} {{ list < 2 }}",
	"{{ 10 - 2 + 3 }} {{ 2 + 3 * 4 }} {{ 2 * 3 ** 2 }} {{ 'a' ~ 1 + 2 }} {{ -2 ** 2 }} {{ not 1 == 2 }}",
	"{{ name | replace('a', 'X') | upper | truncate(8) }}", "{{ users | map }}",
	"{% set obj2 = {x: [1, {y: 'deep'}]} %}{{ obj2.x[1].y }}", "{{ true }}{{ True }}{{ none }}{{ None }}{{ null }}",
	"{% if n > 10 and n < 50 or no %}in{% endif %}{% if not (n == 42) %}no{% else %}yes{% endif %}",
	"{{ html | truncate(5) }} {{ html | safe | truncate(5) }} {{ html | replace('<', '[') }}",
	"{{ 0.5 | round }} {{ 1.005 | round(2) }} {{ 1234.5678 | round(-2) }}",
	"{% for u in users %}{% for t in [1, 2] %}{{ loop.index }}/{{ loop.length }}{% endfor %}{{ loop.index }};{% endfor %}",
	"{% for u in users -%}\n- name: {{ u.name }}\n  role: {{ u.role | default('none') }}\n{% endfor %}",
	"pages:\n{%- for p in ['a', 'b'] %}\n  - id: {{ p }}\n    title: {{ p | capitalize }}\n{%- endfor %}\n",
	"{{ user | dump(2) }}", "{{ {'a': [1, {'b': nil}]} | dump | safe }}", "{{ 'x' | dump }}", "{{ 1.5 | dump }}",
	"{% set items = [] %}{% for i in [1,2,3] %}{% set items = (items.push(i), items) %}{% endfor %}{{ items }}",
	"{% set total = 0 %}{% for u in users %}{% if u.role == 'admin' %}{% set total = total + u.n %}{% endif %}{% endfor %}{{ total }}",
	"{{ name if name else 'anon' }} {{ missing if missing else 'anon' }} {{ (n > 10) and 'big' or 'small' }}",
	"{{ users | length > 2 }} {{ (users | length) > 2 }} {{ name | length + 1 }}",
	"{{ 'a' ~ 'b' | upper }} {{ ('a' ~ 'b') | upper }} {{ -n | abs }} {{ not t | string }}",
	"{{ loop }}{% for x in [1] %}{{ loop.first and loop.last }}{% endfor %}",
	"{% if n is number and name is string %}ok{% endif %} {{ n is not string }} {{ 5 is divisibleby 5 }}",
	"{{ nil | default('d') }} {{ nil | d('d', true) }} {{ false | default('d') }} {{ false | d('d', true) }}",
	"{{ obj.b | upper }} {{ obj['c'] | first }} {{ user.tags | join(' & ') }} {{ user.tags | join(' & ') | safe }}",
	"{% macro m(a, b) %}[{{ a }}|{{ b }}]{% endmacro %}{{ m() }}{{ m(1) }}{{ m(1, 2, 3) }}{{ m(b=2) }}",
	"{{ range(3) | join(',') }} {{ range(0) }} {{ range(1, 10, 3) | sum }}",
	"{{ '%s' | replace('%s', name) }} {{ 'a.b.c' | replace('.', '/') }} {{ 'x' | replace('y', 'z') }}",
	"{{ '  multiple   spaces  ' | striptags }}|{{ 'no tags' | striptags }}|{{ nil | striptags }}|",
	"{{ 'Hello World' | truncate(5, true, '') }} {{ 'Hello' | truncate(5) }} {{ 'Hello World' | truncate(7) }}",
	"{{ [3, 1, 2] | sort | reverse | join }} {{ ['b', 'a'] | sort | first }} {{ [nil, 2, 1] | sort }}",
	"{{ 10 / 3 }} {{ 10 // 3 }} {{ 2 ** 0.5 }} {{ 1 - 0.9 }} {{ 100 * 1.1 }} {{ 1e3 }} {{ 5 % 0 }}",
	"{{ '5' * '2' }} {{ '5' - 2 }} {{ '5' + 2 }} {{ [] + 1 }} {{ [2] * 3 }} {{ nil * 3 }} {{ t * 3 }}",
	"{{ 'b' in ['a', 'b'] }} {{ 1 in ['1'] }} {{ '' in 'abc' }} {{ nil in [nil] }}",
	"{{ name | title | replace(' ', '_') | lower }}", "{{ text | indent(2) | safe }}", "{{ '' | first }}|{{ '' | last }}|",
	"{% if not missing %}A{% endif %}{% if not nil %}B{% endif %}{% if not 0 %}C{% endif %}{% if not [] %}D{% endif %}",
	"{% for k, v in {b: 2, a: 1} %}{{ k }}{{ v }}{% endfor %}", "{% for x, y in [[1, 2], [3]] %}{{ x }}-{{ y }};{% endfor %}",
	"{%- raw -%}  {{ x }}  {%- endraw -%}", "{% raw %}{% endraw %}", "{{ '{{' }} {{ '}}' }} {{ '{%' }}",
	"{# unclosed comment", "{% if %}{% endif %}", "{{ 1 + }}", "{{ [1, 2 }}", "{{ {a: } }}", "{% for x in %}{% endfor %}",
	"{% set %}", "{% macro %}{% endmacro %}", "{% endif %}", "{% else %}", "{{ a b }}", "{{ user.name. }}", "{{ |upper }}",
	"{{ date | date('YYYY') }} {{ 'garbage' | date('YYYY') }} {{ 0 | date('YYYY-MM-DD') }} {{ date | date('unix') }}",
	"{{ ts | date('valueOf') }} {{ date | date('year') }} {{ date | date('month') }} {{ date | date('format', 'MMM') }}",
	"{% for k, v in {b: 2, a: 1, '10': 3, '2': 4} %}{{ k }}{{ v }}{% endfor %} {{ {z: 1, y: [1], x: 'a'} | dump | safe }} {{ {b: 1, a: 2} | list | dump | safe }}",
	"{% for role, us in users | groupby('role') %}{{ role }}:{{ us | length }};{% endfor %} {{ users | groupby('n') | dump | safe }}",
	"{% for k, v in ordered %}{{ k }}={{ v }};{% endfor %} {{ ordered | dump | safe }} {{ ordered.b }} {{ 'a' in ordered }} {{ ordered | length }}",
	"{% set c = cycler('odd', 'even') %}{% for x in list %}{{ c.next() }}{{ c.current }} {% endfor %}{{ c.reset() }}[{{ c.current }}]{{ c.next() }}",
	"{% set comma = joiner() %}{% for x in words %}{{ comma() }}{{ x }}{% endfor %} {% set j = joiner(' | ') %}{% for x in list %}{{ j() }}{{ x }}{% endfor %}",
	"{% set c = cycler() %}[{{ c.next() }}]",
	"{{ '  a  b  ' | title }} {{ 'ÉCOLE élève' | lower }} {{ 'straße' | upper }}",
}

func TestDifferentialAgainstNunjucks(t *testing.T) {
	vars := corpusVars()
	cases := make([]oracletest.Case, len(corpus))
	for i, src := range corpus {
		cases[i] = oracletest.Case{Lib: "nunjucks", Op: "render", Args: []any{src, vars}}
	}
	res := oracletest.Run(t, cases)
	agreed := 0
	for i, src := range corpus {
		got, err := Render(src, vars)
		want := res[i]
		switch {
		case want.OK && err == nil && got == want.Value:
			agreed++
		case !want.OK && err != nil:
			agreed++
		default:
			if knownDifferences[src] {
				continue
			}
			if want.OK {
				t.Errorf("template %q:\n got  %q (err %v)\n want %q", src, got, err, want.Value)
			} else {
				t.Errorf("template %q: want error %q, got %q", src, firstLine(want.Error), got)
			}
		}
	}
	oracletest.Report(t, "nunjucks", agreed, len(corpus))
}

// knownDifferences are corpus entries where the Go port deliberately differs.
var knownDifferences = map[string]bool{
	// JavaScript arrays are shared, mutable references; Go values are not:
	// mutating methods such as push are not provided.
	"{% set items = [] %}{% for i in [1,2,3] %}{% set items = (items.push(i), items) %}{% endfor %}{{ items }}": true,
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …" + strings.TrimSpace(s[i:])
	}
	return s
}

// orderedSample is an object whose key order is not sorted; the oracle gets
// the same keys in the same order through JSON (see TestDifferentialAgainstNunjucks).
func orderedSample() *jsvalue.Object {
	return jsvalue.ObjectOf("b", 1.0, "a", "x", "c", []any{true})
}
