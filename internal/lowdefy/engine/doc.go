// Package engine is a headless Lowdefy client: the page contexts, block
// tree, state, update loop, events, actions and requests of
// @lowdefy/engine and @lowdefy/actions-core 4.0.0-rc.11, in Go, with no
// browser and no React.
//
// An Engine holds what Lowdefy keeps on its `lowdefy` object: the global
// (_global), the inputs of each page (_input, set by Link), the URL query
// (_url_query), the page contexts created so far (one per visited page,
// reused on return as getContext memoises them) and the current page.
// Navigate opens a page like a Link action and runs its lifecycle: onInit
// (once per context, then the state is frozen for Reset), onInitAsync
// (once), then onMount and onMountAsync of the rendered blocks; NavigateURL
// also opens "page?query" as its URL would. SetValue, Trigger, CallMethod and
// SetState are what a user (or agent) does on the page; SetValue gives a date
// block what its component stores for a picked date (an ISO 8601 string, in
// Options.TimeZone: blocks.PickDate), and SetStateFromAgent is SetState that
// does the same for the date blocks it reaches. Save and Restore move the
// engine's plain data through JSON.
//
// What runs as in Lowdefy: Blocks.js (areas, list blocks with one set of
// sub-areas per item, `$` index substitution, pushItem, unshiftItem,
// removeItem, moveItemUp, moveItemDown, the update loop repeated while
// visibility changes, at most 20 times, values of hidden inputs and lists
// removed from state while the block keeps its value, required and validate
// rules with error and warning status, showValidation), State.js (set, del
// with pruning of empty parents, swap, freeze and reset), Events.js and
// Actions.js (try/catch, skip, messages, the whole action parsed at once
// with _actions, errors in responses, the event log read by _event_log),
// Requests.js (payload evaluated on the client; calls newest first;
// _request null while loading) and every action of actions-core.
//
// Headless values: _location is http://localhost:3000/<basePath>/<pageId>
// (Options.Origin), _media is a 1280×800 window (size "xl",
// Options.Window), _user is Options.User.
//
// Differences from Lowdefy, by design:
//
//   - Everything runs synchronously and in order. Debounce is off (actions
//     run at once), `async: true` actions run to completion before the next
//     action (their errors still do not stop the chain), onInitAsync and
//     onMountAsync are awaited, and the requests of one Request action are
//     prepared together and then called one after another.
//   - onMount/onMountAsync run after a navigation for the blocks rendered at
//     that moment, parents first and in block order (a block's children
//     render once its onMount has finished, as @lowdefy/client's MountEvents
//     does), each block's onMount then its onMountAsync; a hidden block and
//     everything below it are not rendered. Blocks that become visible later,
//     and list items added later, do not fire onMount.
//   - Only properties, visible, required, validate and loading are
//     evaluated: style, layout, skeleton and areas layout affect only the
//     rendering and are not evaluated.
//   - Block methods are those the React components register: every block
//     has triggerEvent, registerEvent and registerMethod (a no-op: it takes
//     a JavaScript function), inputs setValue (no onChange), lists the list
//     methods of Blocks.js; Modal, Drawer and Sider toggleOpen/setOpen (and
//     ConfirmModal open) keep an open flag and trigger onOpen/onClose
//     (Drawer and Sider also onToggle; an open Modal that closes then runs
//     afterClose); the other component methods (Message.open,
//     Carousel.goTo, AgGrid exports, …) only change what is drawn and do
//     nothing.
//   - Events a component's own controls raise do what the component does
//     around them when triggered (components.go): Modal onOk/onCancel and
//     Drawer onClose close the block unless the event failed, ConfirmModal
//     onOk/onCancel close it, Tabs and Collapse onChange switch the active
//     key, closable Alerts and Tags close. The Page's Tree shows the result
//     (Node.Open, ActiveKey, Closed).
//   - Menus (_menu, the home page, Page.Menus) are the user's: filtered by
//     page auth as Lowdefy's getMenus does.
//   - Unknown block types run as containers (with areas) or display blocks
//     with a logged warning instead of failing the page (package blocks).
//   - Link: pageId and home links set the input and navigate after the
//     current step (the rest of the action chain still runs on the old page,
//     as router.push does); newTab, url and href links are only recorded;
//     back goes to the previous page of the engine's history, with its URL
//     query.
//   - Browser-only actions (ScrollTo, SetFocus, CopyToClipboard,
//     GeolocationCurrentPosition) do nothing and log a warning entry
//     {"type":"warning","action":T,"message":"T is a browser-only action; it
//     has no effect headless."}.
//     Login, Logout and UpdateSession are recorded and change nothing.
//   - Fetch uses Options.HTTPClient; responseFunction "json" and "text" are
//     supported; without one the response is {} (what Lowdefy's copy of the
//     browser's Response object holds, as _actions reads it).
//   - CallAPI (late v4, not in rc.11) follows callAPIHandler: the call
//     object is kept per endpoint, newest first, and returned.
//   - A Link to a page the user may not see (page auth) or to an unknown
//     page opens the 404 page, as Lowdefy's server redirects there;
//     Navigate to such a page fails and leaves the current page open (as
//     the page route answers nothing). "" opens the home page
//     (config.homePageId, else the first page of the default menu, else the
//     first page).
//
// The journal (Engine.Journal) records what a browser would show or do
// outside the page: DisplayMessage (the action and the loading, success and
// error messages of actions), Link, Login, Logout, UpdateSession, Throw,
// failed actions ("error") and browser-only actions ("warning").
package engine
