package render

import "testing"

func TestHTMLToMarkdown(t *testing.T) {
	cases := []struct{ in, want string }{
		{`<h2 style="color:red">Monthly   report</h2><p>Sales <b>rose</b> by <i>12%</i>.</p>`,
			"## Monthly report\n\nSales **rose** by *12%*."},
		{`<div style="padding:8px"><span style="font-weight:bold">Total:</span> 1,234</div>`, "Total: 1,234"},
		{`Line one<br>Line two<br/>Line three`, "Line one\nLine two\nLine three"},
		{`<ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul>`, "- one\n- two\n  - nested"},
		{`<ol start="3"><li>c<li>d</ol>`, "3. c\n4. d"},
		{`<a href="https://lowdefy.com">Lowdefy</a> and <a href="javascript:alert(1)">bad</a>`,
			"[Lowdefy](https://lowdefy.com) and bad"},
		{`<img src="/logo.png" alt="Logo"><img src="javascript:x" alt="X">`, "![Logo](/logo.png)X"},
		{`<script>alert(1)</script><style>p{color:red}</style><!-- note -->Shown`, "Shown"},
		{`<table><tr><th>Name</th><th>City</th></tr><tr><td>Ann</td><td>Oslo | Norway</td></tr></table>`,
			"| Name | City |\n|---|---|\n| Ann | Oslo \\| Norway |"},
		{`<blockquote><p>quoted</p><p>twice</p></blockquote>`, "> quoted\n>\n> twice"},
		{"<pre><code>a  b\n  c</code></pre>", "```\na  b\n  c\n```"},
		{`Fish &amp; chips &lt;3 &nbsp;`, "Fish & chips <3"},
		{`a < b and c > d`, "a < b and c > d"},
		{`<p>unclosed <b>bold`, "unclosed **bold**"},
		{`<input type="checkbox" checked> done`, "[x] done"},
		{`<hr><h1></h1>`, "---"},
	}
	for _, c := range cases {
		if got := htmlToMarkdown(c.in); got != c.want {
			t.Errorf("htmlToMarkdown(%q) =\n%q\nwant\n%q", c.in, got, c.want)
		}
	}
}

func TestHTMLInline(t *testing.T) {
	cases := []struct{ in, want string }{
		{"<h2>Edit ticket</h2>", "Edit ticket"},
		{"<h2 style=\"margin:0\">Edit</h2><p>#3 of 5</p>", "Edit #3 of 5"},
		{"Plain title", "Plain title"},
		{"a < b", "a < b"},
		{"Tom &amp; Jerry", "Tom & Jerry"},
		{"<b>Line</b><br>two", "Line two"},
		{`<a href="https://x.org">site</a> <code>v2</code> <img src="/a.png" alt="pic">`, "site v2 pic"},
	}
	for _, c := range cases {
		if got := htmlInline(c.in); got != c.want {
			t.Errorf("htmlInline(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
