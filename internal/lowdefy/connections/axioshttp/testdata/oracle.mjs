// oracle.mjs — runs testdata/scenario.json with Lowdefy's own AxiosHttp connection
// (@lowdefy/connection-axios-http 4.0.0-rc.11, axios 1.5.1) against a local server that
// answers like the Go test's (server.go in the test), and prints one line per step:
// "<name>\t<JSON of {status, statusText, data}>" or "<name>\tERROR\t<message>". The Go
// test compares its own results with these lines (want.txt). To regenerate:
//
//   cd /tmp/x && npm install --ignore-scripts @lowdefy/connection-axios-http@4.0.0-rc.11
//   node oracle.mjs > want.txt     (from a directory whose node_modules has the package)
import fs from 'fs';
import http from 'http';
import { AxiosHttp } from '@lowdefy/connection-axios-http/connections';

const server = http.createServer((req, res) => {
  let body = '';
  req.setEncoding('latin1');
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const url = req.url;
    if (url.startsWith('/echo')) {
      const headers = {};
      for (const [k, v] of Object.entries(req.headers).sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (['accept', 'content-type', 'authorization', 'user-agent', 'content-length'].includes(k) || k.startsWith('x-')) headers[k] = v;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ method: req.method, url, headers, body: Buffer.from(body, 'latin1').toString('utf8') }));
    }
    if (url.startsWith('/status/')) {
      const code = parseInt(url.slice(8), 10);
      if (url.includes('text=')) { res.writeHead(code, { 'Content-Type': 'text/plain' }); return res.end('failed'); }
      res.writeHead(code, { 'Content-Type': 'application/json' });
      return res.end(code === 204 ? undefined : JSON.stringify({ code, ok: code < 300 }));
    }
    if (url === '/redir') { res.writeHead(302, { Location: '/echo/redirected' }); return res.end(); }
    if (url === '/text') { res.writeHead(200, { 'Content-Type': 'text/plain' }); return res.end('hello'); }
    if (url === '/bytes') { res.writeHead(200); return res.end(Buffer.from([0x68, 0xe9, 0xff, 0x00])); }
    if (url === '/slow') { setTimeout(() => res.end('late'), 1000); return; }
    res.writeHead(404); res.end();
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;
const revive = (text) => JSON.parse(text.replaceAll('{{base}}', base), (k, x) => (x && typeof x === 'object' && '~d' in x ? new Date(x['~d']) : x));
const steps = revive(fs.readFileSync(new URL('./scenario.json', import.meta.url), 'utf8'));
for (const step of steps) {
  try {
    const r = await AxiosHttp.requests.AxiosHttp({ connection: step.connection, request: step.request });
    console.log(`${step.name}\t${JSON.stringify({ status: r.status, statusText: r.statusText, data: r.data })}`);
  } catch (e) {
    console.log(`${step.name}\tERROR\t${e.message.replaceAll(base, '{{base}}')}`);
  }
}
server.close();
process.exit(0);
