// Package blocks is the table of Lowdefy's default block types as of
// 4.0.0-rc.11: for each type its package, category, value type, initial value
// and the methods its React component registers.
//
// The metas were read from the published packages (blocks-antd, blocks-basic,
// blocks-markdown, blocks-loaders, blocks-echarts, blocks-aggrid,
// blocks-color-selectors, blocks-google-maps, blocks-qr, blocks-algolia and
// plugin-aws at 4.0.0-rc.11). The headless engine reads only these metas, never
// a component, exactly as Lowdefy's engine does.
//
// Date blocks: PickDate turns an ISO 8601 date or timestamp into what a date
// block's component stores when a person picks it (read from the components'
// onChange in blocks-antd 4.0.0-rc.11), and DateKind says how each shows its
// value. Lowdefy has no TimeSelector block.
//
// Categories are those of Lowdefy v4: container, display, input and list.
// There is no "context" category in v4 (pages are containers).
//
// Unknown types: Lookup reports false. Lowdefy itself refuses to run a page
// with an unknown type ("Block type X not found"); the engine instead treats
// an unknown type as a container when the block has areas and as a display
// block otherwise (see Guess) and logs a warning, so that apps with custom
// plugin blocks still run headlessly. A custom input block therefore holds no
// value headlessly.
package blocks
