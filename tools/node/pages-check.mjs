// Checks mcpbridge's HTML pages in headless Debian Chromium, driven by playwright-core.
// Run by e2e/pages_test.go (TestPagesChromium); usable by hand too:
//
//   node22 tools/node/pages-check.mjs --base http://127.0.0.1:8080 --out /tmp/shots \
//     [--server tools-demo] [--tool echo] [--hostile-server xss-demo] [--chromium /usr/bin/chromium]
//
// The gateway must serve e2e/testdata/gateway.yaml. The script opens /mcp and
// /mcp/meta/<server>, fails on any console error, page error or failed request, checks the
// server and tool lists, submits the try-it form of <tool> with a message that is HTML, and
// checks the result shows it as text. It then opens the meta page of <hostile-server>, whose
// description is HTML, and checks no dialog opens and the text is shown literally. Last it
// opens every page /mcp links to with the same checks, and that no --canary value shows.
//
// Output: one JSON object on stdout,
//   {"checks":[{"name":..., "ok":true|false, "detail":...}], "screenshots":[path...]}
// Exit status 0 when every check passed, 1 when one failed, 2 when the run itself broke.

import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const { values: opts } = parseArgs({
  options: {
    base: { type: 'string' },
    out: { type: 'string' },
    server: { type: 'string', default: 'tools-demo' },
    tool: { type: 'string', default: 'echo' },
    'hostile-server': { type: 'string', default: 'xss-demo' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    timeout: { type: 'string', default: '15000' },
    // A secret's value that no page may show (repeatable): the e2e canaries.
    canary: { type: 'string', multiple: true, default: [] },
  },
});
if (!opts.base || !opts.out) {
  console.error('usage: pages-check.mjs --base http://127.0.0.1:PORT --out DIR [--server NAME] [--tool NAME] [--hostile-server NAME]');
  process.exit(2);
}
const base = opts.base.replace(/\/+$/, '');
const timeout = Number(opts.timeout);
const XSS_MESSAGE = '<script>alert(1)</script>';
const HOSTILE_TEXT = '<img src=x onerror=alert(1)>';

const checks = [];
const screenshots = [];
function check(name, ok, detail = '') {
  checks.push({ name, ok: !!ok, detail: typeof detail === 'string' ? detail : JSON.stringify(detail) });
}

// Everything that goes wrong on a page while it is watched: console errors, uncaught page
// errors, failed requests (network failures and HTTP >= 400), and dialogs (alert/confirm/...).
function watch(page) {
  const w = { consoleErrors: [], pageErrors: [], failedRequests: [], dialogs: [] };
  page.on('console', (msg) => {
    if (msg.type() === 'error') w.consoleErrors.push(`${msg.text()} (${msg.location().url || 'no url'})`);
  });
  page.on('pageerror', (err) => w.pageErrors.push(String(err && err.stack || err)));
  page.on('requestfailed', (req) => w.failedRequests.push(`${req.method()} ${req.url()}: ${req.failure()?.errorText}`));
  page.on('response', (resp) => {
    // Chromium asks for /favicon.ico by itself; a missing favicon is not the page's request.
    if (resp.status() >= 400 && !resp.url().endsWith('/favicon.ico')) {
      w.failedRequests.push(`${resp.request().method()} ${resp.url()}: HTTP ${resp.status()}`);
    }
  });
  page.on('dialog', (d) => {
    w.dialogs.push(`${d.type()}: ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  return w;
}

function checkClean(label, w) {
  check(`${label}: no console errors`, w.consoleErrors.length === 0, w.consoleErrors);
  check(`${label}: no page errors`, w.pageErrors.length === 0, w.pageErrors);
  check(`${label}: no failed requests`, w.failedRequests.length === 0, w.failedRequests);
  check(`${label}: no dialog opened`, w.dialogs.length === 0, w.dialogs);
}

async function shot(page, name) {
  const file = path.join(opts.out, name);
  await page.screenshot({ path: file, fullPage: true });
  screenshots.push(file);
}

async function open(context, url) {
  const page = await context.newPage();
  page.setDefaultTimeout(timeout);
  const w = watch(page);
  const resp = await page.goto(url, { waitUntil: 'load' });
  check(`GET ${new URL(url).pathname}: HTTP 200`, resp && resp.status() === 200, resp ? `HTTP ${resp.status()}` : 'no response');
  const ct = resp ? (resp.headers()['content-type'] || '') : '';
  check(`GET ${new URL(url).pathname}: HTML`, ct.startsWith('text/html'), `Content-Type: ${ct}`);
  return { page, w };
}

async function serverList(context) {
  const { page, w } = await open(context, `${base}/mcp`);
  for (const name of [opts.server, opts['hostile-server']]) {
    const link = page.locator(`a[href="/mcp/meta/${name}"]`);
    check(`/mcp links to /mcp/meta/${name}`, (await link.count()) >= 1, `${await link.count()} links`);
  }
  const body = await page.locator('body').innerText();
  check(`/mcp shows the hostile description as text`, body.includes(HOSTILE_TEXT), 'text not found in body');
  check(`/mcp has no injected <img src=x>`, (await page.locator('img[src="x"]').count()) === 0);
  await page.waitForTimeout(300); // let a late onerror handler or dialog show itself
  await shot(page, 'mcp-index.png');
  checkClean('/mcp', w);
  await page.close();
}

async function metaPage(context) {
  const url = `${base}/mcp/meta/${opts.server}`;
  const { page, w } = await open(context, url);
  const tool = opts.tool;
  const body = await page.locator('body').innerText();
  check(`meta page lists tool ${tool}`, body.includes(tool), 'tool name not in page text');
  check(`meta page shows the description "Echo a message back"`, body.includes('Echo a message back'));
  const form = page.locator(`form.try-it[data-tool="${tool}"]`);
  check(`meta page has a try-it form for ${tool}`, (await form.count()) === 1, `${await form.count()} forms`);
  if ((await form.count()) !== 1) {
    await shot(page, `meta-${opts.server}.png`);
    checkClean(`/mcp/meta/${opts.server}`, w);
    return;
  }
  const textarea = form.locator('textarea[name="arguments"]');
  const prefill = await textarea.inputValue();
  let prefillOK = true;
  try { JSON.parse(prefill); } catch { prefillOK = false; }
  check('try-it arguments are prefilled with JSON', prefillOK, prefill);

  await textarea.fill(JSON.stringify({ message: XSS_MESSAGE }));
  const result = page.locator(`pre.try-it-result[data-tool="${tool}"]`);
  await form.locator('button[type="submit"]').click();
  let status = null;
  try {
    await page.locator(`pre.try-it-result[data-tool="${tool}"][data-status]`).waitFor({ state: 'attached', timeout });
    status = await result.getAttribute('data-status');
  } catch (e) {
    check('try-it result gets data-status', false, `no data-status within ${timeout} ms; result text: ${await result.textContent().catch(() => '?')}`);
  }
  if (status !== null) {
    const text = await result.textContent();
    check('try-it result has data-status="ok"', status === 'ok', `data-status=${status}; text: ${text}`);
    let parsed = null;
    try { parsed = JSON.parse(text); } catch { /* reported below */ }
    check('try-it result is the tools/call result as JSON', parsed && Array.isArray(parsed.content), text);
    const first = parsed && parsed.content && parsed.content[0];
    check('try-it result text contains the message', first && first.type === 'text' && first.text.includes(XSS_MESSAGE),
      first ? first.text : text);
    check('try-it result is visible', await result.isVisible());
    check('try-it result shows the message as text (no <script> element)', (await result.locator('script').count()) === 0,
      await result.innerHTML());
    const html = await result.innerHTML();
    check('try-it result HTML escapes the message', html.includes('&lt;script&gt;'), html);
  }
  await page.waitForTimeout(300);
  await shot(page, `meta-${opts.server}.png`);
  checkClean(`/mcp/meta/${opts.server}`, w);
  await page.close();
}

async function hostileMeta(context) {
  const name = opts['hostile-server'];
  const { page, w } = await open(context, `${base}/mcp/meta/${name}`);
  const body = await page.locator('body').innerText();
  check(`/mcp/meta/${name} shows the description literally`, body.includes(HOSTILE_TEXT), 'text not found in body');
  check(`/mcp/meta/${name} has no injected <img src=x>`, (await page.locator('img[src="x"]').count()) === 0);
  check(`/mcp/meta/${name} shows the tool description literally`, body.includes('<script>alert(2)</script>'), 'text not found in body');
  await page.waitForTimeout(300);
  await shot(page, `meta-${name}.png`);
  checkClean(`/mcp/meta/${name}`, w);
  await page.close();
}

// everyPage opens every page /mcp links to (the meta page of every server) and checks that
// none runs injected script (no dialog, no page error, no injected <img src=x>), none logs a
// console error or fails a request, and none shows a canary secret.
async function everyPage(context) {
  const { page: index } = await open(context, `${base}/mcp`);
  const hrefs = [...new Set(await index.locator('a[href^="/mcp/meta/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href'))))];
  await index.close();
  check('/mcp links to meta pages', hrefs.length > 0, `${hrefs.length} links`);
  for (const href of ['/mcp', ...hrefs]) {
    const { page, w } = await open(context, `${base}${href}`);
    await page.waitForTimeout(300); // let a late onerror handler or dialog show itself
    const label = `every page: ${href}`;
    check(`${label}: no injected <img src=x>`, (await page.locator('img[src="x"]').count()) === 0);
    const html = await page.content();
    opts.canary.forEach((c, i) => {
      check(`${label}: shows no secret (canary ${i + 1})`, !html.includes(c), 'a canary secret is in the page');
    });
    checkClean(label, w);
    await page.close();
  }
}

async function main() {
  mkdirSync(opts.out, { recursive: true });
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'mcpbridge-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: opts.chromium,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1200, height: 900 },
      timeout: 60000,
    });
    await serverList(context);
    await metaPage(context);
    await hostileMeta(context);
    await everyPage(context);
  } finally {
    if (context) await context.close().catch(() => {});
    rmSync(userDataDir, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (e) {
  check('the page run finished', false, String(e && e.stack || e));
  process.stdout.write(JSON.stringify({ checks, screenshots }) + '\n');
  process.exit(2);
}
process.stdout.write(JSON.stringify({ checks, screenshots }) + '\n');
process.exit(checks.every((c) => c.ok) ? 0 : 1);
