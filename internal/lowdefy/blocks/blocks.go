package blocks

import (
	"maps"
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// Category is a block category: what the engine does with a block.
type Category string

// The block categories of Lowdefy v4.
const (
	// Container blocks have areas of child blocks and no value.
	Container Category = "container"
	// Display blocks have no children and no value.
	Display Category = "display"
	// Input blocks hold a value at state[blockId].
	Input Category = "input"
	// List blocks hold an array at state[blockId] and one set of child areas per item.
	List Category = "list"
)

// Meta is what the engine knows about a block type (the component's meta in Lowdefy).
type Meta struct {
	// Type is the block type name, such as TextInput.
	Type string
	// Package is the npm package that provides the type.
	Package string
	// Category is the block category.
	Category Category
	// ValueType is the type the value is coerced to ("string", "number",
	// "boolean", "date", "array", "object", "any"), or "" when the block has none
	// (its value is then always null).
	ValueType string
	// Methods are the names of the methods the component registers for
	// CallMethod (pushItem on lists, toggleOpen on modals, …).
	Methods []string
	// Options says what an input's options property means for its value:
	// ClosedOptions (the value is one of them: Selector, RadioSelector, …),
	// SuggestedOptions (they are suggestions and any text is a value:
	// AutoComplete) or NoOptions.
	Options OptionsKind
	// Unsupported says, for a built-in type whose work mcpbridge cannot do
	// headlessly (a camera, a browser upload, a hosted search), what the block
	// does and what an agent can do instead; "" for supported types.
	Unsupported string
	// initValue builds the initial value when not nil.
	initValue func() any
}

// OptionsKind says what an input's options property means for its value.
type OptionsKind int

// The kinds of options.
const (
	// NoOptions: the block has no options property.
	NoOptions OptionsKind = iota
	// ClosedOptions: the value is one of the options (or a list of them).
	ClosedOptions
	// SuggestedOptions: the options are suggestions; any text is a value.
	SuggestedOptions
)

// HasInitValue reports whether the type has an initial value other than the
// coerced null of its value type.
func (m Meta) HasInitValue() bool { return m.initValue != nil }

// InitValue returns a fresh copy of the type's initial value: its own initial
// value when it has one (Pagination), else its value type's coerced null
// (an empty array for arrays, false for booleans, null otherwise).
func (m Meta) InitValue() any {
	if m.initValue != nil {
		return m.initValue()
	}
	return EnforceType(m.ValueType, nil)
}

// HasMethod reports whether the type registers the named method.
func (m Meta) HasMethod(name string) bool { return slices.Contains(m.Methods, name) }

var listMethods = []string{"moveItemDown", "moveItemUp", "pushItem", "removeItem", "unshiftItem"}
var openMethods = []string{"toggleOpen", "setOpen"}
var gridMethods = []string{"exportDataAsCsv", "sizeColumnsToFit", "autoSize", "setFilterModel", "setQuickFilter"}

// table holds the meta of the default block types by type, built on first use.
var table = lazy.Value[map[string]Meta]{New: newTable}

func newTable() map[string]Meta {
	table := map[string]Meta{}
	add := func(pkg string, cat Category, valueType string, methods []string, types ...string) {
		for _, t := range types {
			table[t] = Meta{Type: t, Package: pkg, Category: cat, ValueType: valueType, Methods: methods}
		}
	}
	const antd, basic = "@lowdefy/blocks-antd", "@lowdefy/blocks-basic"
	add(antd, Container, "", nil, "Affix", "Alert", "Badge", "Card", "Collapse", "Comment",
		"Content", "Descriptions", "Footer", "Header", "Label", "Layout", "PageHeaderMenu",
		"Result", "Tabs", "Tooltip")
	add(antd, Container, "", []string{"goTo", "next", "prev"}, "Carousel")
	add(antd, Container, "", []string{"open"}, "ConfirmModal")
	add(antd, Container, "", openMethods, "Modal", "Drawer", "Sider")
	add(antd, Container, "", []string{"toggleSiderOpen", "setSiderOpen"}, "PageSiderMenu")
	add(antd, Display, "", nil, "Avatar", "Breadcrumb", "Button", "Divider", "Menu", "Paragraph",
		"Progress", "Statistic", "Tag", "Title")
	add(antd, Display, "", []string{"open"}, "Message", "Notification")
	add(antd, Display, "", openMethods, "MobileMenu")
	add(antd, Input, "string", nil, "AutoComplete", "ParagraphInput", "PasswordInput", "TextArea",
		"TextInput", "TitleInput")
	add(antd, Input, "number", nil, "NumberInput")
	add(antd, Input, "boolean", nil, "CheckboxSwitch", "Switch")
	add(antd, Input, "date", nil, "DateSelector", "DateTimeSelector", "MonthSelector", "WeekSelector")
	add(antd, Input, "array", nil, "CheckboxSelector", "DateRangeSelector", "MultipleSelector")
	add(antd, Input, "any", nil, "ButtonSelector", "RadioSelector", "RatingSlider", "Selector")
	add(antd, Input, "object", nil, "PhoneNumberInput", "Pagination")
	pagination := table["Pagination"]
	pagination.initValue = func() any {
		return jsvalue.ObjectOf("current", 0.0, "pageSize", 10.0, "skip", 0.0)
	}
	table["Pagination"] = pagination
	add(antd, List, "array", listMethods, "ControlledList")
	add(antd, List, "", nil, "TimelineList")

	add(basic, Container, "", nil, "Box", "Span")
	add(basic, Display, "", nil, "Anchor", "DangerousHtml", "Html", "Icon", "Img")
	add(basic, List, "array", listMethods, "List")

	add("@lowdefy/blocks-markdown", Container, "", nil, "Markdown", "MarkdownWithCode", "DangerousMarkdown")
	add("@lowdefy/blocks-echarts", Display, "", nil, "EChart")
	add("@lowdefy/blocks-aggrid", Display, "", gridMethods, "AgGridAlpine", "AgGridAlpineDark",
		"AgGridBalham", "AgGridBalhamDark", "AgGridMaterial")
	add("@lowdefy/blocks-aggrid", Input, "array", gridMethods, "AgGridInputAlpine",
		"AgGridInputAlpineDark", "AgGridInputBalham", "AgGridInputBalhamDark", "AgGridInputMaterial")
	add("@lowdefy/blocks-loaders", Display, "", nil, "ProgressBar", "Skeleton", "SkeletonAvatar",
		"SkeletonButton", "SkeletonInput", "SkeletonParagraph", "Spinner")
	add("@lowdefy/blocks-color-selectors", Input, "string", nil, "ColorSelector")
	add("@lowdefy/blocks-google-maps", Container, "", nil, "GoogleMaps", "GoogleMapsHeatmap", "GoogleMapsScript")
	add("@lowdefy/blocks-qr", Input, "object", nil, "QRScanner")
	add("@lowdefy/blocks-algolia", Display, "", nil, "DocSearch")
	add("@lowdefy/plugin-aws", Input, "object", nil, "S3UploadButton", "S3UploadPhoto")

	for _, t := range []string{"ButtonSelector", "CheckboxSelector", "MultipleSelector", "RadioSelector", "Selector"} {
		m := table[t]
		m.Options = ClosedOptions
		table[t] = m
	}
	ac := table["AutoComplete"]
	ac.Options = SuggestedOptions
	table["AutoComplete"] = ac
	for t, why := range unsupported {
		m := table[t]
		m.Unsupported = why
		table[t] = m
	}
	return table
}

// unsupported names the built-in types whose work needs a browser device or a
// hosted service, with what an agent can do instead.
var unsupported = map[string]string{
	"DocSearch": "searches an Algolia DocSearch index from the browser; mcpbridge does not call Algolia, " +
		"so the search box does nothing headless",
	"QRScanner": "scans a QR code with the device camera; there is no camera headless: " +
		"set the scanned value with setValue instead",
	"S3UploadButton": "uploads a file from the browser to S3 through a presigned policy; mcpbridge " +
		"does not upload files, so nothing can be uploaded headless",
	"S3UploadPhoto": "uploads a photo from the browser to S3 through a presigned policy; mcpbridge " +
		"does not upload files, so nothing can be uploaded headless",
}

// Lookup returns the meta of a default block type.
func Lookup(typ string) (Meta, bool) {
	m, ok := table.Get()[typ]
	return m, ok
}

// Guess returns the meta the engine uses for a type that is not in the
// table: a container when the block has areas, a display block otherwise.
func Guess(typ string, hasAreas bool) Meta {
	if hasAreas {
		return Meta{Type: typ, Category: Container}
	}
	return Meta{Type: typ, Category: Display}
}

// Types returns the names of all default block types, sorted.
func Types() []string {
	table := table.Get()
	names := slices.Sorted(maps.Keys(table))
	return names
}
