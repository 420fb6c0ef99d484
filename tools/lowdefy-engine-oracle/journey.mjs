// Lowdefy engine oracle: runs a journey script headlessly on Lowdefy's own engine
// (@lowdefy/engine, @lowdefy/actions-core, @lowdefy/operators-js client parser) with requests
// executed in-process by @lowdefy/api's callRequest (server parser, real connections:
// AxiosHttp, Knex, MongoDBCollection), all at 4.0.0-rc.11. It is the oracle for the
// differential tests of the Go engine (internal/lowdefy/lowdefytest).
//
// Usage: node journey.mjs APP_DIR SCRIPT.json [--user JSON] [--build BUILD_DIR] [--now MS]
//
//   APP_DIR     a Lowdefy app (lowdefy.yaml); it is built with @lowdefy/build into a
//               temporary folder, unless --build names a folder that already holds the
//               build artifacts (pages/, connections/, config.json, ...).
//   SCRIPT.json a journey: a JSON array of steps (see README.md).
//   --user      the session user as a JSON object (`_user`); none = anonymous.
//   --now       freezes the clock (Date.now(), new Date()) at MS milliseconds since the epoch.
//
// Secrets come from LOWDEFY_SECRET_* environment variables, as in Lowdefy.
// Prints one JSON line per step on stdout; everything else (engine logs) goes to stderr.
// Exit status: 0 when the journey ran (steps may report errors), 2 on usage errors, 1 when
// the app could not be built or the script could not be read.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// --- arguments ---------------------------------------------------------------------------
const args = process.argv.slice(2);
const positional = [];
const flags = {};
for (let i = 0; i < args.length; i++) {
  if (args[i].startsWith('--')) {
    flags[args[i].slice(2)] = args[i + 1];
    i++;
  } else {
    positional.push(args[i]);
  }
}
const [appDir, scriptPath] = positional;
if (!appDir || !scriptPath || positional.length !== 2) {
  process.stderr.write('usage: node journey.mjs APP_DIR SCRIPT.json [--user JSON] [--build BUILD_DIR] [--now MS]\n');
  process.exit(2);
}

// --- clock, console ----------------------------------------------------------------------
if (flags.now !== undefined) {
  const FIXED_NOW = Number(flags.now);
  if (!Number.isFinite(FIXED_NOW)) {
    process.stderr.write(`--now must be a number of milliseconds, got ${flags.now}\n`);
    process.exit(2);
  }
  const RealDate = Date;
  class FrozenDate extends RealDate {
    constructor(...a) {
      if (a.length === 0) super(FIXED_NOW);
      else super(...a);
    }
    static now() {
      return FIXED_NOW;
    }
  }
  globalThis.Date = FrozenDate;
}
// stdout carries only the step lines.
const toStderr = (...a) => process.stderr.write(a.map((x) => (typeof x === 'string' ? x : safeString(x))).join(' ') + '\n');
function safeString(x) {
  try {
    if (x instanceof Error) return x.stack || String(x);
    return JSON.stringify(x);
  } catch {
    return String(x);
  }
}
console.log = toStderr;
console.info = toStderr;
console.warn = toStderr;
console.debug = toStderr;
console.error = toStderr;

const { serializer, type, get, urlQuery: urlQueryFn } = await import('@lowdefy/helpers');
const { default: getContext, createLink } = await import('@lowdefy/engine');
const api = await import('@lowdefy/api');
const { default: build } = await import('@lowdefy/build');
const actionsCore = await import('@lowdefy/actions-core/actions');
const operatorsClient = await import('@lowdefy/operators-js/operators/client');
const operatorsServer = await import('@lowdefy/operators-js/operators/server');
const { default: getSecretsFromEnv } = await import('@lowdefy/node-utils/dist/getSecretsFromEnv.js').catch(async () => {
  const m = await import('@lowdefy/node-utils');
  return { default: m.getSecretsFromEnv };
});
const clientOps = { ...operatorsClient };
const serverOps = { ...operatorsServer };
for (const p of ['nunjucks', 'uuid', 'yaml', 'change-case', 'moment', 'diff', 'mql']) {
  Object.assign(clientOps, await import(`@lowdefy/operators-${p}/operators/client`));
  Object.assign(serverOps, await import(`@lowdefy/operators-${p}/operators/server`));
}
const connections = {
  ...(await import('@lowdefy/connection-axios-http/connections')),
  ...(await import('@lowdefy/connection-knex/connections')),
  ...(await import('@lowdefy/connection-mongodb/connections')),
};
const { default: moment } = await import('moment');
const metas = JSON.parse(fs.readFileSync(new URL('./block-metas.json', import.meta.url), 'utf8'));

// --- build -------------------------------------------------------------------------------
let script;
let user = null;
try {
  script = JSON.parse(fs.readFileSync(scriptPath, 'utf8'));
  if (!Array.isArray(script)) throw new Error('the journey script must be a JSON array of steps');
  if (flags.user !== undefined) {
    user = JSON.parse(flags.user);
    if (!type.isObject(user)) throw new Error('--user must be a JSON object');
  }
} catch (err) {
  process.stderr.write(`journey: ${err.message}\n`);
  process.exit(1);
}

let buildDir = flags.build;
let tmpDir = null;
if (!buildDir) {
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lowdefy-engine-oracle-'));
  const serverDir = path.join(tmpDir, 'server');
  buildDir = path.join(tmpDir, 'build');
  fs.mkdirSync(path.join(serverDir, 'public_default'), { recursive: true });
  fs.writeFileSync(
    path.join(serverDir, 'package.json'),
    JSON.stringify({ name: '@lowdefy/server', version: '4.0.0-rc.11', private: true, dependencies: {} })
  );
  const logger = { info() {}, log() {}, succeed() {}, debug() {}, warn: toStderr, error: toStderr };
  try {
    await build({ directories: { config: path.resolve(appDir), build: buildDir, server: serverDir }, logger, stage: 'prod' });
  } catch (err) {
    process.stderr.write(`journey: building ${appDir} failed: ${err.message}\n`);
    process.exit(1);
  }
}
function cleanup() {
  if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
}

// --- server side: @lowdefy/api in this process ----------------------------------------------
const apiLogger = { debug() {}, info() {}, warn: toStderr, error: toStderr, log() {} };
function apiContext() {
  const ctx = {
    buildDirectory: buildDir,
    connections,
    fileCache: new Map(),
    logger: apiLogger,
    operators: serverOps,
    secrets: getSecretsFromEnv(),
    session: user ? { user } : null,
  };
  api.createApiContext(ctx);
  return ctx;
}
const serverCtx = apiContext();
let config = {};
try {
  config = (await serverCtx.readConfigFile('config.json')) || {};
} catch {
  config = {};
}
serverCtx.config = config;
const rootConfig = await api.getRootConfig(serverCtx);

// --- the event log of the current step ---------------------------------------------------------
let events = [];
const record = (entry) => events.push(entry);
const plain = (v) => (v === undefined ? null : JSON.parse(JSON.stringify(serializer.serialize(v))));

// --- async work tracking: everything a step starts is finished before its line is printed -------
let pending = 0;
function track(promise) {
  pending++;
  return Promise.resolve(promise).finally(() => {
    pending--;
  });
}
async function drain() {
  // Fire-and-forget events (onInitAsync, onMountAsync, async actions, methods of blocks that
  // trigger events) run on promises; wait until nothing is pending and a few macrotask turns
  // pass without new work.
  let quiet = 0;
  let guard = 0;
  while (quiet < 3 && guard < 100000) {
    guard++;
    await new Promise((r) => setImmediate(r));
    if (pending > 0) {
      quiet = 0;
      await new Promise((r) => setTimeout(r, 1));
    } else {
      quiet++;
    }
  }
}

// --- headless window ---------------------------------------------------------------------------
const ORIGIN = 'http://localhost:3000';
const windowStub = {
  location: { hash: '', host: 'localhost:3000', hostname: 'localhost', href: ORIGIN + '/', origin: ORIGIN, pathname: '/', port: '3000', protocol: 'http:', search: '' },
  innerWidth: 1280,
  innerHeight: 800,
  navigator: {},
};
function setLocation(pageId, urlQuery, rawSearch) {
  // rawSearch: the query of a URL opened as it is written (a navigate step "page?k=v").
  const query = type.isString(rawSearch) ? rawSearch : type.isNone(urlQuery) ? '' : urlQueryFn.stringify(urlQuery);
  const search = query ? `?${query}` : '';
  const pathname = `/${pageId}`;
  Object.assign(windowStub.location, { pathname, search, href: `${ORIGIN}${pathname}${search}` });
}
const documentStub = { getElementById: () => null };

// --- the lowdefy object (what @lowdefy/client's initLowdefyContext supplies) ----------------------
let pendingNavigation = null;
const history = [];
const lowdefy = {
  basePath: '',
  contexts: {},
  inputs: {},
  lowdefyGlobal: rootConfig.lowdefyGlobal,
  home: rootConfig.home || {},
  menus: rootConfig.menus,
  pageId: null,
  user: user,
};
function browserOnly(actionType) {
  return () => {
    record({ type: 'warning', action: actionType, message: `${actionType} is a browser-only action; it has no effect headless.` });
  };
}
const actions = {
  ...actionsCore,
  ScrollTo: browserOnly('ScrollTo'),
  CopyToClipboard: browserOnly('CopyToClipboard'),
  GeolocationCurrentPosition: browserOnly('GeolocationCurrentPosition'),
  Throw: (p) => {
    try {
      return actionsCore.Throw(p);
    } catch (err) {
      if (err && err.name === 'ThrowError') {
        const entry = { type: 'Throw', message: err.message ?? null };
        if (err.metaData !== undefined) entry.metaData = plain(err.metaData);
        record(entry);
      }
      throw err;
    }
  },
};
function linkEntry(props, extra) {
  const entry = { type: 'Link' };
  for (const k of ['pageId', 'url', 'urlQuery', 'input', 'newTab']) {
    const v = k in extra ? extra[k] : props[k];
    if (v !== undefined) entry[k] = plain(v);
  }
  return entry;
}
const link = createLink({
  lowdefy,
  backLink: (props) => {
    record({ type: 'Link', back: true });
    if (history.length > 1) pendingNavigation = { back: true };
  },
  disabledLink: () => {},
  newOriginLink: ({ url, newTab, ...props }) => {
    record(linkEntry({ ...props, newTab }, { url }));
  },
  sameOriginLink: ({ newTab, setInput, pathname, query, ...props }) => {
    const pageId = props.home === true ? lowdefy.home.pageId : props.pageId;
    record(linkEntry({ ...props, newTab }, { pageId }));
    if (!newTab) {
      setInput();
      pendingNavigation = { pageId, urlQuery: props.urlQuery };
    }
  },
  noLink: () => {
    throw new Error('Invalid Link.');
  },
});
lowdefy._internal = {
  actions,
  blockComponents: Object.fromEntries(Object.entries(metas).map(([t, m]) => [t, { meta: m }])),
  components: {},
  operators: clientOps,
  globals: { window: windowStub, document: documentStub, fetch: (...a) => track(globalThis.fetch(...a)) },
  displayMessage: (params) => {
    record({ type: 'DisplayMessage', params: plain(params) });
    return () => undefined;
  },
  updateBlock: () => {},
  link,
  progress: { state: { progress: 0 }, dispatch: () => {} },
  updaters: {},
  auth: {
    login: (params) => record({ type: 'Login', params: plain(params ?? null) }),
    logout: (params) => record({ type: 'Logout', params: plain(params ?? null) }),
    updateSession: () => record({ type: 'UpdateSession', params: null }),
  },
  callRequest: ({ blockId, pageId, payload, requestId }) =>
    track(
      (async () => {
        // As over HTTP: the body is JSON, and a failure reaches the client as its message.
        const body = JSON.parse(JSON.stringify({ blockId, payload }));
        try {
          const res = await api.callRequest(apiContext(), { blockId: body.blockId, pageId, payload: body.payload, requestId });
          return JSON.parse(JSON.stringify(res));
        } catch (err) {
          throw new Error(err.message || 'Request error');
        }
      })()
    ),
};

// --- block methods the browser components register ---------------------------------------------
function loopAll(blocks, fn) {
  blocks.loopBlocks((block) => {
    fn(block);
    (blocks.subBlocks[block.id] || []).forEach((sub) => loopAll(sub, fn));
  });
}
function fire(block, name, event) {
  return track(block.triggerEvent({ name, event }));
}
function registerComponentMethods(block) {
  if (block._oracleMethods) return;
  block._oracleMethods = true;
  const m = block.methods;
  m.registerEvent = block.registerEvent;
  m.registerMethod = block.registerMethod;
  m.triggerEvent = block.triggerEvent;
  if (block.meta.category === 'input') m.setValue = block.setValue;
  if (block.meta.category === 'list') {
    Object.assign(m, {
      pushItem: block.pushItem,
      unshiftItem: block.unshiftItem,
      removeItem: block.removeItem,
      moveItemUp: block.moveItemUp,
      moveItemDown: block.moveItemDown,
    });
  }
  let open = false;
  switch (block.type) {
    case 'Modal': {
      // blocks-antd Modal triggerSetOpen; antd calls afterClose when the closing animation of
      // an open modal ends, so after onClose has run.
      const setOpen = (state) => {
        const was = open;
        const p = fire(block, state ? 'onOpen' : 'onClose');
        open = state;
        if (was && !state) p.then(() => fire(block, 'afterClose'));
      };
      m.toggleOpen = () => setOpen(!open);
      m.setOpen = ({ open: o } = {}) => setOpen(!!o);
      block._oracleSetOpen = setOpen;
      break;
    }
    case 'Drawer':
    case 'Sider': {
      const setOpen = (state) => {
        fire(block, state ? 'onOpen' : 'onClose');
        fire(block, 'onToggle');
        open = state;
      };
      m.toggleOpen = () => setOpen(!open);
      m.setOpen = ({ open: o } = {}) => setOpen(!!o);
      block._oracleSetOpen = setOpen;
      break;
    }
    case 'ConfirmModal':
      m.open = () => {
        fire(block, 'onOpen');
      };
      break;
    case 'Message':
    case 'Notification':
      m.open = () => undefined;
      break;
    case 'PageSiderMenu':
      m.toggleSiderOpen = () => undefined;
      m.setSiderOpen = () => undefined;
      break;
    case 'MobileMenu':
      m.toggleOpen = () => undefined;
      m.setOpen = () => undefined;
      break;
    case 'Carousel':
      m.goTo = () => undefined;
      m.next = () => undefined;
      m.prev = () => undefined;
      break;
    default:
  }
}

// --- events raised by a component's own controls --------------------------------------------------
// A `trigger` step of one of these events does what the blocks-antd component does when its
// control raises it (4.0.0-rc.11 source): Modal onOk/onCancel close the modal unless the event
// failed or bounced; Drawer onClose closes the drawer the same way (triggerSetOpen fires onClose
// again and onToggle); Alert onClose is followed, once the closing animation ends, by afterClose
// when the alert is closable. ConfirmModal's onOk/onCancel and Tabs/Collapse onChange only trigger
// the event (what else they change is drawn state, not Lowdefy state).
async function componentTrigger(block, name, event) {
  if (block.type === 'Modal' && (name === 'onOk' || name === 'onCancel')) {
    const response = await block.triggerEvent({ name, event });
    if (response.success === false) return;
    if (response.bounced !== true) block._oracleSetOpen(false);
    return;
  }
  if (block.type === 'Drawer' && name === 'onClose') {
    const response = await block.triggerEvent({ name, event });
    if (response.success === false) return;
    if (response.bounced !== true) block._oracleSetOpen(false);
    return;
  }
  if (block.type === 'Alert' && name === 'onClose') {
    const p = block.triggerEvent({ name, event });
    const props = block.eval?.properties ?? {};
    if (props.closable || props.closeText) await p.then(() => fire(block, 'afterClose'));
    else await p;
    return;
  }
  await block.triggerEvent({ name, event });
}

// --- pages ---------------------------------------------------------------------------------------
function stripDebounce(node) {
  if (Array.isArray(node)) return node.forEach(stripDebounce);
  if (!type.isObject(node)) return;
  if (type.isObject(node.events)) {
    for (const ev of Object.values(node.events)) {
      if (type.isObject(ev)) delete ev.debounce;
    }
  }
  for (const v of Object.values(node)) stripDebounce(v);
}
let context = null;

function instrument(ctx) {
  if (ctx._oracle) return;
  ctx._oracle = true;
  const update = ctx._internal.update;
  ctx._internal.update = () => {
    update();
    loopAll(ctx._internal.RootBlocks, registerComponentMethods);
  };
  loopAll(ctx._internal.RootBlocks, registerComponentMethods);
  const callActions = ctx._internal.Actions.callActions;
  ctx._internal.Actions.callActions = async (params) => {
    const res = await callActions(params);
    if (res.success === false) {
      const name = `${params.block.blockId}.${params.eventName}`;
      for (const e of [res.error, res.errorCatch]) {
        if (!e) continue;
        record({ type: 'error', event: name, action: e.action?.id ?? null, message: e.error?.error?.message ?? e.error?.message ?? String(e.error) });
      }
    }
    return res;
  };
}

async function mountBlocks(blocks) {
  // Blocks mount after their parent, in order; hidden blocks are not rendered.
  const list = [];
  blocks.loopBlocks((b) => list.push(b));
  for (const block of list) {
    if (block.visibleEval?.output === false) continue;
    await track(block.triggerEvent({ name: 'onMount' }));
    fire(block, 'onMountAsync');
    for (const sub of blocks.subBlocks[block.id] || []) await mountBlocks(sub);
  }
}

async function navigate(pageId, { input, urlQuery, search, back } = {}) {
  const pageConfig = await api.getPageConfig(serverCtx, { pageId });
  if (!pageConfig) throw new Error(`Page "${pageId}" not found.`);
  stripDebounce(pageConfig);
  if (!back) {
    if (input !== undefined) lowdefy.inputs[`page:${pageId}`] = input;
    history.push({ pageId, urlQuery, search });
  }
  setLocation(pageId, urlQuery, search);
  lowdefy.pageId = pageId;
  context = getContext({ config: pageConfig, lowdefy });
  instrument(context);
  await context._internal.runOnInit(() => {});
  track(context._internal.runOnInitAsync(() => {}));
  // The page block, then its descendants (@lowdefy/client Block + MountEvents).
  const root = context._internal.RootBlocks;
  await mountBlocks(root);
}

async function followLinks() {
  // Lowdefy's router changes page after the event that called Link; follow it (and any Link
  // the new page's lifecycle calls), at most 20 times.
  for (let i = 0; i < 20 && pendingNavigation; i++) {
    const nav = pendingNavigation;
    pendingNavigation = null;
    await drain();
    if (nav.back) {
      history.pop();
      const prev = history[history.length - 1];
      await navigate(prev.pageId, { urlQuery: prev.urlQuery, search: prev.search, back: true });
    } else {
      await navigate(nav.pageId, { urlQuery: nav.urlQuery, input: lowdefy.inputs[`page:${nav.pageId}`] });
    }
    await drain();
  }
}

// --- date blocks: what a person picking a date hands the component -------------------------------
// A setValue step that gives a date block (DateSelector, DateTimeSelector, MonthSelector,
// WeekSelector, DateRangeSelector) an ISO 8601 string is a person picking that date: the antd
// picker hands the component's onChange a moment showing the picked wall-clock time in the
// browser's zone (TZ; UTC for a DateTimeSelector with selectUTC, whose picker shows UTC). The
// onChange bodies below are those of @lowdefy/blocks-antd 4.0.0-rc.11
// (dist/blocks/<Type>/<Type>.js), with methods.setValue as block.setValue. Any other value
// (a {"~d"} date, null) goes to block.setValue as it is.
const DATE_BLOCKS = new Set(['DateSelector', 'DateTimeSelector', 'MonthSelector', 'WeekSelector', 'DateRangeSelector']);
function picked(s, utcPicker) {
  const m = utcPicker ? moment.utc(s, moment.ISO_8601, true) : moment(s, moment.ISO_8601, true);
  if (!m.isValid()) throw new Error(`"${s}" is not an ISO 8601 date or timestamp.`);
  // A local moment showing the wall-clock time the picker shows.
  return moment(m.format('YYYY-MM-DDTHH:mm:ss.SSS'));
}
function pickDate(block, value) {
  const properties = block.propertiesEval?.output ?? {};
  const methods = { setValue: block.setValue };
  const strings = (v) => type.isString(v) || (type.isArray(v) && v.every(type.isString));
  if (!strings(value) || value === '') return false;
  switch (block.type) {
    case 'DateSelector': {
      const newVal = picked(value);
      methods.setValue(!newVal ? null : moment.utc(newVal.add(newVal.utcOffset(), 'minutes')).startOf('day').toDate());
      return true;
    }
    case 'DateTimeSelector': {
      const timeUnit = !type.isString(properties.timeFormat) ? 'minute' : properties.timeFormat === 'HH:mm:ss' ? 'second' : properties.timeFormat === 'HH' ? 'hour' : 'minute';
      const newVal = picked(value, !!properties.selectUTC);
      methods.setValue(!newVal ? null : moment.utc(newVal.add(properties.selectUTC ? newVal.utcOffset() : 0, 'minutes')).startOf(timeUnit).toDate());
      return true;
    }
    case 'MonthSelector': {
      const newVal = picked(value);
      methods.setValue(!newVal ? null : moment.utc(newVal.add(newVal.utcOffset(), 'minutes')).startOf('month').toDate());
      return true;
    }
    case 'WeekSelector': {
      const newVal = picked(value);
      methods.setValue(!newVal ? null : moment.utc(newVal.add(newVal.utcOffset(), 'minutes')).startOf('week').toDate());
      return true;
    }
    case 'DateRangeSelector': {
      const parts = type.isString(value) ? value.split('/') : value;
      if (parts.length !== 2) throw new Error('A range is two dates.');
      const newVal = parts.map((p) => (type.isDate(p) ? moment(p) : picked(p)));
      methods.setValue(!newVal ? null : newVal.map((val) => moment.utc(val.add(val.utcOffset(), 'minutes')).startOf('day').toDate()));
      return true;
    }
    default:
      return false;
  }
}

function block(blockId) {
  if (!context) throw new Error('No page: the journey must start with a navigate step.');
  const b = context._internal.RootBlocks.map[blockId];
  if (!b) throw new Error(`Block "${blockId}" not found on page "${context.pageId}".`);
  return b;
}

async function runStep(step) {
  if (!type.isObject(step)) throw new Error('A step must be an object.');
  if ('navigate' in step) {
    if (!type.isString(step.navigate)) throw new Error('"navigate" must be a page id.');
    // "page?k=v" opens the page as its URL would: the query is the location's search as written.
    // As a URL: a leading "/" is the path's, and a "#fragment" is not part of the search.
    const [pageId, ...rest] = step.navigate.split('#')[0].replace(/^\//, '').split('?');
    const search = rest.length > 0 && rest.join('?') !== '' ? rest.join('?') : undefined;
    // Dates ({"~d": ms}) in input and urlQuery are dates, as in the Go journey runner.
    const urlQuery = step.urlQuery === undefined ? undefined : serializer.deserialize(step.urlQuery);
    await navigate(pageId, { input: serializer.deserialize(step.input ?? {}), urlQuery, search });
    return;
  }
  if ('setValue' in step) {
    const b = block(step.setValue);
    if (b.meta.category !== 'input') throw new Error(`Block "${step.setValue}" is not an input block.`);
    const value = serializer.deserialize(step.value);
    if (!(DATE_BLOCKS.has(b.type) && pickDate(b, value))) b.setValue(value);
    await track(b.triggerEvent({ name: 'onChange' }));
    return;
  }
  if ('trigger' in step) {
    const b = block(step.trigger);
    const name = step.event ?? 'onClick';
    await track(componentTrigger(b, name, step.args === undefined ? undefined : serializer.deserialize(step.args)));
    return;
  }
  if ('callMethod' in step) {
    const b = block(step.callMethod);
    const fn = b.methods[step.method];
    if (typeof fn !== 'function') throw new Error(`Block "${step.callMethod}" has no method "${step.method}".`);
    await track(Promise.resolve(fn(...serializer.deserialize(step.args ?? []))));
    return;
  }
  if ('setState' in step) {
    if (!context) throw new Error('No page: the journey must start with a navigate step.');
    if (!type.isObject(step.setState)) throw new Error('"setState" must be an object.');
    const values = serializer.deserialize(step.setState);
    Object.keys(values).forEach((key) => context._internal.State.set(key, values[key]));
    context._internal.RootBlocks.reset();
    context._internal.update();
    return;
  }
  throw new Error(`Unknown step: ${JSON.stringify(step)}`);
}

function validationOf(ctx) {
  const out = {};
  if (!ctx) return out;
  loopAll(ctx._internal.RootBlocks, (b) => {
    if (!b.showValidation || b.visibleEval?.output === false) return;
    const v = b.validationEval?.output;
    if (!v || (v.errors.length === 0 && v.warnings.length === 0)) return;
    out[b.blockId] = { status: v.status ?? null, errors: plain(v.errors), warnings: plain(v.warnings) };
  });
  return out;
}
function requestsOf(ctx) {
  const out = {};
  if (!ctx) return out;
  for (const [id, calls] of Object.entries(ctx.requests)) {
    const latest = calls[0];
    if (!latest) continue;
    out[id] = {
      response: latest.loading ? null : plain(latest.response),
      error: latest.error ? String(latest.error.message ?? latest.error) : null,
    };
  }
  return out;
}

for (let i = 0; i < script.length; i++) {
  events = [];
  let error = null;
  try {
    await runStep(script[i]);
    await drain();
    await followLinks();
  } catch (err) {
    error = err && err.message ? err.message : String(err);
    await drain();
  }
  const line = {
    step: i + 1,
    pageId: context ? context.pageId : null,
    state: context ? plain(context.state) : {},
    global: plain(lowdefy.lowdefyGlobal),
    validation: validationOf(context),
    requests: requestsOf(context),
    events,
    error,
  };
  process.stdout.write(JSON.stringify(line) + '\n');
}
cleanup();
// Connections (knex, mongodb) keep handles open; the journey is done.
process.exit(0);
