// Differential-test oracle: reads a JSON array of cases on stdin and writes a
// JSON array of results ({ok:true,value} or {ok:false,error}) to stdout.
// Each case is {lib, op, args}. Runs with TZ=UTC.
process.env.TZ = 'UTC';
import { nunjucksString } from '@lowdefy/nunjucks';
import mingo from 'mingo';
import 'mingo/init/system';
import moment from 'moment';
import * as changeCase from 'change-case';

const revive = (v) => {
  if (Array.isArray(v)) return v.map(revive);
  if (v && typeof v === 'object') {
    if (Object.keys(v).length === 1 && '$date' in v) return new Date(v.$date);
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = revive(x);
    return o;
  }
  return v;
};

const encode = (v) => {
  if (v === undefined) return { $undefined: true };
  if (v instanceof Date) return { $date: v.getTime() };
  if (typeof v === 'number' && !Number.isFinite(v)) return { $number: String(v) };
  if (Array.isArray(v)) return v.map(encode);
  if (v && typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = encode(x);
    return o;
  }
  return v;
};

const ops = {
  nunjucks: {
    render: ([src, vars]) => nunjucksString(src, vars),
  },
  mql: {
    aggregate: ([data, pipeline]) => new mingo.Aggregator(pipeline).run(data),
    expr: ([data, expr]) => {
      const res = new mingo.Aggregator([{ $project: { value: expr } }]).run([data]);
      const v = res[0] ? res[0].value : undefined;
      return v === undefined ? null : v;
    },
    test: ([data, query]) => new mingo.Query(query).test(data),
  },
  moment: {
    format: ([ms, fmt]) => moment(ms).format(fmt),
    parse: ([s, fmt]) => { const m = moment.utc(s, fmt); return m.isValid() ? m.valueOf() : 'invalid'; },
    add: ([ms, n, unit]) => moment(ms).add(n, unit).valueOf(),
    startOf: ([ms, unit]) => moment(ms).startOf(unit).valueOf(),
    endOf: ([ms, unit]) => moment(ms).endOf(unit).valueOf(),
    diff: ([a, b, unit, precise]) => moment(a).diff(moment(b), unit, precise),
    humanize: ([d, withSuffix, th]) => moment.duration(d).humanize(withSuffix, th ?? undefined),
    fromValue: ([v]) => { const m = moment(v); return m.isValid() ? m.valueOf() : 'invalid'; },
  },
  changecase: {
    call: ([fn, input, options]) => {
      const opts = { ...(options || {}) };
      if (opts.splitRegexp) opts.splitRegexp = new RegExp(opts.splitRegexp, 'gm');
      if (opts.stripRegexp) opts.stripRegexp = new RegExp(opts.stripRegexp, 'gm');
      return changeCase[fn](input, opts);
    },
  },
};

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const cases = JSON.parse(input);
  const out = cases.map(({ lib, op, args }) => {
    try {
      return { ok: true, value: encode(ops[lib][op](revive(args))) };
    } catch (e) {
      return { ok: false, error: String(e && e.message ? e.message : e) };
    }
  });
  process.stdout.write(JSON.stringify(out));
});
