// Lowdefy operator oracle: evaluates a JSON-lines corpus with Lowdefy's real
// WebParser/ServerParser (4.0.0-rc.11) and writes one JSON line per input:
// {"value": <serialized output>, "hasErrors": bool} (or "undefined": true /
// "function": true when the output is undefined / a function). Time is frozen at 1700000000000 ms,
// Math.random follows a fixed sequence reset per line, and TZ must be UTC.
//
// Usage: TZ=UTC node oracle.mjs CONTEXT.json < corpus.jsonl > golden.jsonl
import fs from 'node:fs';
import readline from 'node:readline';

const FIXED_NOW = 1700000000000;
const RealDate = Date;
class FrozenDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(FIXED_NOW);
    else super(...args);
  }
  static now() {
    return FIXED_NOW;
  }
}
globalThis.Date = FrozenDate;
let rnd = 0;
Math.random = () => {
  rnd = (rnd + 0.6180339887498949) % 1;
  return rnd;
};
console.error = () => {};
console.log = () => {};
console.warn = () => {};

const { WebParser, ServerParser, BuildParser } = await import('@lowdefy/operators');
const { serializer, type } = await import('@lowdefy/helpers');
const client = await import('@lowdefy/operators-js/operators/client');
const server = await import('@lowdefy/operators-js/operators/server');
const buildOps = (await import('@lowdefy/operators-js/operators/build')).default;
const plugins = ['nunjucks', 'uuid', 'yaml', 'change-case', 'moment', 'diff', 'mql'];
const clientOps = { ...client };
const serverOps = { ...server };
for (const p of plugins) {
  Object.assign(clientOps, await import(`@lowdefy/operators-${p}/operators/client`));
  Object.assign(serverOps, await import(`@lowdefy/operators-${p}/operators/server`));
}

const fixture = serializer.deserialize(JSON.parse(fs.readFileSync(process.argv[2], 'utf8')));

function webParser() {
  const context = {
    id: 'page:' + fixture.pageId,
    pageId: fixture.pageId,
    eventLog: fixture.eventLog,
    requests: fixture.requests,
    state: fixture.state,
    _internal: {
      lowdefy: {
        basePath: fixture.basePath,
        home: { pageId: fixture.homePageId, configured: true },
        inputs: { ['page:' + fixture.pageId]: fixture.input },
        lowdefyGlobal: fixture.global,
        menus: fixture.menus,
        pageId: fixture.pageId,
        user: fixture.user,
        _internal: {
          globals: {
            window: {
              location: fixture.location,
              innerWidth: fixture.window.innerWidth,
              innerHeight: fixture.window.innerHeight,
            },
          },
        },
      },
    },
  };
  return new WebParser({ context, operators: clientOps });
}

function summarize(value, check) {
  if (check === 'type') {
    const out = { type: type.typeOf(value) };
    if (type.isString(value) || type.isArray(value)) out.length = value.length;
    return out;
  }
  return value;
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  const tc = JSON.parse(line);
  rnd = 0;
  const result = {};
  try {
    const parser = tc.build
      ? new BuildParser({ operators: buildOps, env: fixture.env })
      : tc.server
        ? new ServerParser({ operators: serverOps, payload: fixture.payload, secrets: fixture.secrets, user: fixture.user })
        : webParser();
    const { output, errors } = parser.parse({
      operatorPrefix: tc.build ? '_build.' : '_',
      input: tc.expr,
      location: tc.location ?? 'block1',
      arrayIndices: tc.arrayIndices ?? [],
      event: tc.noEvent ? undefined : 'event' in tc ? tc.event : fixture.event,
      actions: fixture.actions,
    });
    const value = summarize(output, tc.check);
    if (type.isFunction(value)) result.function = true;
    else if (value === undefined) result.undefined = true;
    else result.value = serializer.serialize(value);
    result.hasErrors = errors.length > 0;
  } catch (e) {
    result.value = null;
    result.hasErrors = true;
    result.threw = true;
  }
  process.stdout.write(JSON.stringify(result) + '\n');
}
