// oracle.mjs — runs testdata/scenario.json with Lowdefy's own Knex connection
// (@lowdefy/connection-knex 4.0.0-rc.11, knex 2.5.1 and the Node drivers) and prints one
// line per step: "<name>\t<JSON result>" or "<name>\tERROR\t<message>". The Go test
// compares its results with these lines (want-<client>.txt). To regenerate:
//
//   cd /tmp/x && npm install --ignore-scripts @lowdefy/connection-knex@4.0.0-rc.11 && npm rebuild sqlite3
//   node oracle.mjs sqlite3 /tmp/db.sqlite > want-sqlite3.txt
//   node oracle.mjs postgres postgres://…/db > want-postgres.txt
//   node oracle.mjs mysql mysql://…/db > want-mysql.txt
//
// (run it with NODE_PATH or from the directory holding node_modules; TZ=UTC).
import fs from 'fs';
import { Knex } from '@lowdefy/connection-knex/connections';
const [client, target] = process.argv.slice(2);
const connection = client === 'sqlite3'
  ? { client, connection: { filename: target } }
  : { client: client === 'postgres' ? 'pg' : client, connection: target };
const revive = (v) => JSON.parse(JSON.stringify(v), (k, x) => (x && typeof x === 'object' && '~d' in x ? new Date(x['~d']) : x));
const steps = revive(JSON.parse(fs.readFileSync(new URL('./scenario.json', import.meta.url))));
for (const step of steps) {
  if (step.only && step.only !== client) continue;
  const request = step.request;
  if (request.query && typeof request.query === 'object' && !Array.isArray(request.query)) request.query = request.query[client];
  try {
    const res = await Knex.requests[step.type]({ connection, request });
    console.log(`${step.name}\t${JSON.stringify(res)}`);
  } catch (e) {
    console.log(`${step.name}\tERROR\t${e.message}`);
  }
}
process.exit(0);
