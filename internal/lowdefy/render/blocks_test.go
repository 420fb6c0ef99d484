package render_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/blocks"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/render"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/runtime"
)

// blocksEngine runs testdata/blocks, an app with every richly rendered block type (and
// some unknown ones), headlessly without a server.
func blocksEngine(t *testing.T) *engine.Engine {
	t.Helper()
	return blocksEngineAs(t, nil)
}

// blocksEngineAs is blocksEngine for a signed-in user (nil: anonymous).
func blocksEngineAs(t *testing.T, user *jsvalue.Object) *engine.Engine {
	t.Helper()
	a, err := app.Load(filepath.Join("testdata", "blocks"), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return runtime.NewEngine(a, runtime.Options{
		NoServer: true,
		User:     user,
		Now:      func() time.Time { return now },
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
}

// Every built-in block type of Lowdefy v4 (the types of the block packages at 4.0.0-rc.11,
// as internal/lowdefy/blocks lists them) and every type with a render of its own appears in
// testdata/blocks, so its render is in a golden file.
func TestEveryBuiltinTypeIsGolden(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "blocks", "lowdefy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s*type: (\w+)`).FindAllStringSubmatch(string(src), -1) {
		used[m[1]] = true
	}
	want := append(blocks.Types(), render.RichTypes()...)
	if len(blocks.Types()) != 96 {
		t.Errorf("%d built-in types, want 96", len(blocks.Types()))
	}
	for _, typ := range want {
		if !used[typ] {
			t.Errorf("block type %s is not in testdata/blocks", typ)
		}
	}
}

// blockPages are the pages of testdata/blocks, each rendered to a golden file.
var blockPages = []string{"inputs", "display", "containers", "charts", "more", "loading", "result_page"}

func TestBlocksPages(t *testing.T) {
	e := blocksEngine(t)
	for _, page := range blockPages {
		got := render.Page(navigate(t, e, page), render.Options{})
		golden(t, "blocks-"+page, got)
	}
}

func TestInputs(t *testing.T) {
	e := blocksEngine(t)
	got := render.Page(navigate(t, e, "inputs"), render.Options{})
	contains(t, got,
		"# Every input\n",
		`menu=[inputs:"Inputs", display:"Display"]`,
		`<input id="text" type="TextInput" required label="Text" placeholder="Type here" value="hello">`,
		`<input id="area" type="TextArea" label="Notes" value=null>`,
		`<input id="secret" type="PasswordInput" label="Password" value="(7 characters, hidden)">`,
		`<input id="count" type="NumberInput" label="Count" min=0 max=10 step=1 value=3>`,
		`<input id="on" type="Switch" label="Enabled" value=true>`,
		`<input id="agree" type="CheckboxSwitch" required label="Agree" description="I agree to the terms" value=false>`,
		`options=["red":"Red", "green":"Green", "blue":"Blue"(disabled)] value="green"`,
		`<input id="tags" type="MultipleSelector" label="Tags" options=["a", "b", "c"] value=["a","c"]>`,
		`options=[1:"Low", 2:"High"]`,
		`<input id="when" type="DateSelector" label="Date" format="YYYY-MM-DD" value="2024-03-01" iso="2024-03-01T00:00:00.000Z">`,
		`<display id="custom_input" type="ShinyCustomInput" unsupported>A custom type without areas runs as a display block</display>`,
		`<input id="phone" type="PhoneNumberInput" label="Phone" value=`,
	)
	lacks(t, got, "hunter2", "hidden_input", "Never shown")

	// A value set by the agent shows in the next render; the password stays hidden.
	must(t, e.SetValue(context.Background(), "secret", "correct horse"))
	must(t, e.SetValue(context.Background(), "size", "M"))
	got = render.Page(e.Page(), render.Options{})
	contains(t, got, `value="(13 characters, hidden)"`, `options=["S", "M", "L"] value="M">`)
	lacks(t, got, "correct horse")
}

func TestSelectorOptionsBounded(t *testing.T) {
	e := blocksEngine(t)
	got := render.Page(navigate(t, e, "inputs"), render.Options{MaxOptions: 2})
	contains(t, got, `options=["a", "b", … 1 more]`, `options=["red":"Red", "green":"Green", … 1 more]`)
}

func TestDisplay(t *testing.T) {
	e := blocksEngine(t)
	got := render.Page(navigate(t, e, "display"), render.Options{})
	contains(t, got,
		"\n### Section\n",
		"\nA plain paragraph.\n",
		`<display id="clickable" type="Paragraph" events=[onClick]>Click me</display>`,
		`<button id="save" loading events=[onClick]>Save</button>`,
		`<button id="remove" disabled danger>Delete</button>`,
		`<button id="docs" type="Anchor" href="https://docs.lowdefy.com">Docs</button>`,
		`<display id="total" type="Statistic" title="Total" value=1234>$1,234</display>`,
		`<display id="warn" type="Alert" status="warning">`,
		"\n---\n",
		`<display id="named_rule" type="Divider">Part two</display>`,
		`<display id="pct" type="Progress" percent=40>`,
		`<display id="logo" type="Img" alt="Logo">`,
		`<display id="custom_display" type="ShinyCustomDisplay" unsupported>A custom block</display>`,
		`<table id="people_table" type="Table" title="People" rows=3>`,
		"| Name | City |\n|---|---|\n| Ann | Oslo |\n| Bob \\| the builder | Rome |\n| Eve\\n# not a heading | Paris |\n",
		`<table id="people_grid" type="AgGridAlpine" rows=3 events=[onRowClick]>`,
		"| Name | age |\n",
		"| name | age | address |\n",
		`| Ann | 31 | {"city":"Oslo"} |`,
		`<table id="empty_grid" type="AgGridMaterial" rows=0></table>`,
		`<table id="grid_input" type="AgGridInputAlpine" label="Editable" rows=0></table>`,
		"| Note |  |", // the script is dropped, as DOMPurify does
	)
	// Text that could pose as markup is fenced: the heading made of data, the multi-line
	// paragraph, the markdown (with a fence longer than its backticks).
	contains(t, got,
		"<display id=\"data_title\" type=\"Title\" level=1>\n```\n# injected heading\n```\n</display>",
		"<display id=\"para_multi\" type=\"Paragraph\">\n```\nLine one\nLine two\n```\n</display>",
		"<display id=\"md\" type=\"Markdown\">\n````markdown\n## Heading\nSome **bold** text with ```code```.\n````\n</display>",
		"<display id=\"html\" type=\"Html\">\n```markdown\n**bold**\n```\n</display>",
	)
	lacks(t, got, "AiOutlineHome", "spinner", `id="icon"`, "\n# not a heading")
}

func TestContainers(t *testing.T) {
	ctx := context.Background()
	e := blocksEngine(t)
	got := render.Page(navigate(t, e, "containers"), render.Options{})
	contains(t, got,
		"<container id=\"card\" type=\"Card\" title=\"A card\">\nInside the card.\n</container>",
		"\nA plain box is drawn by its children only.\n",
		"<container id=\"box_click\" type=\"Box\" events=[onClick]>\nA box with events keeps its tag.\n</container>",
		"<tabs id=\"tabs\" type=\"Tabs\" active=\"one\" events=[onChange]>\n<tab key=\"one\" title=\"First tab\">\n<input id=\"in_tab_one\"",
		"<tab key=\"two\" title=\"Second tab\">\nTab two.\n</tab>\n</tabs>",
		"<collapse id=\"collapse\" type=\"Collapse\" open=[\"p1\"] events=[onChange]>\n<panel key=\"p1\" title=\"Panel 1\">\nIn the panel.\n</panel>\n</collapse>",
		`<container id="modal" type="Modal" title="Edit" open=false methods=[toggleOpen, setOpen] events=[onOk, onCancel]>`,
		`<container id="drawer" type="Drawer" title="Details" open=false methods=[toggleOpen, setOpen] events=[onClose]>`,
		"<container id=\"confirm\" type=\"ConfirmModal\" title=\"Sure?\" open=false methods=[open] okText=\"Yes\" cancelText=\"No\" events=[onOk, onCancel]>\nThis deletes it.\n</container>",
		"<list id=\"todo\" type=\"ControlledList\" title=\"To do\" items=2 actions=[pushItem, unshiftItem, removeItem, moveItemUp, moveItemDown]>\n[0]\n<input id=\"todo.0.task\" type=\"TextInput\" label=\"Task\" value=\"Write\">\n[1]\n<input id=\"todo.1.task\" type=\"TextInput\" label=\"Task\" value=\"Test\">\n</list>",
		`<list id="plain_list" type="List" items=0 actions=[pushItem, unshiftItem, removeItem, moveItemUp, moveItemDown]></list>`,
		`<container id="result" type="Result" status="success" title="Done" subTitle="All saved.">`,
		"<container id=\"alert_with_children\" type=\"Alert\" status=\"info\">\nNote\n<button id=\"alert_button\">Dismiss</button>\n</container>",
		"\nIn a layout.\n",
		`<container id="inner_page" type="PageSiderMenu" title="Nested page layout">`,
		`<container id="custom_container" type="ShinyCustomContainer" unsupported title="Custom">`,
	)
	lacks(t, got, "hidden_card", "in_hidden_card", `id="box"`, `id="inner_layout"`)

	// The list methods and the modal's open state show in the next render.
	must(t, e.CallMethod(ctx, "todo", "pushItem", nil))
	must(t, e.CallMethod(ctx, "todo", "removeItem", []any{0.0}))
	must(t, e.CallMethod(ctx, "modal", "toggleOpen", nil))
	must(t, e.SetValue(ctx, "todo.1.task", "Ship"))
	got = render.Page(e.Page(), render.Options{})
	contains(t, got,
		"items=2 actions=[pushItem, unshiftItem, removeItem, moveItemUp, moveItemDown]>\n[0]\n<input id=\"todo.0.task\" type=\"TextInput\" label=\"Task\" value=\"Test\">\n[1]\n<input id=\"todo.1.task\" type=\"TextInput\" label=\"Task\" value=\"Ship\">\n</list>",
		`<container id="modal" type="Modal" title="Edit" open=true`,
	)
	golden(t, "blocks-containers-after-methods", got)
}

// Large tables show MaxRows rows and say how to see the rest.
func TestTableRowLimit(t *testing.T) {
	e := blocksEngine(t)
	got := render.Page(navigate(t, e, "display"), render.Options{MaxRows: 2, MoreRows: "call get_state for the rest"})
	contains(t, got, "| Ann | Oslo |\n| Bob \\| the builder | Rome |\n```\n(rows 1–2 of 3 shown; call get_state for the rest)\n</table>")
	lacks(t, got, "Paris")
	all := render.Page(e.Page(), render.Options{MaxRows: -1})
	if strings.Count(all, "| Paris |") != 1 || !strings.Contains(all, "rows 1–") == true && strings.Contains(all, "shown;") {
		t.Errorf("unbounded render:\n%s", all)
	}
}

func TestNilPage(t *testing.T) {
	if got := render.Page(nil, render.Options{}); got != "" {
		t.Errorf("Page(nil) = %q", got)
	}
}
