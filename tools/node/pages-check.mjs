// Checks mcpbridge's HTML pages in headless Debian Chromium, driven by playwright-core.
// Run by e2e/pages_test.go (TestPagesChromium); usable by hand too:
//
//   node22 tools/node/pages-check.mjs --base http://127.0.0.1:8080 --out /tmp/shots \
//     [--server tools-demo] [--tool echo] [--hostile-server xss-demo] [--chromium /usr/bin/chromium] \
//     [--scale-base http://127.0.0.1:8081 --scale-server many]
//
// The gateway must serve e2e/testdata/gateway.yaml. The script opens /mcp and
// /mcp/meta/<server>, fails on any console error, page error or failed request, checks the
// server and tool lists, submits the try-it form of <tool> with a message that is HTML, and
// checks the result shows it as text. It then opens the meta page of <hostile-server>, whose
// description is HTML, and checks no dialog opens and the text is shown literally. Last it
// opens every page /mcp links to with the same checks, and that no --canary value shows.
//
// With --scale-base it also checks the page of <scale-server> there, a server of
// gatewaytest.ManyToolsServer (1,223 tools): the search filters the list, the table of
// contents links land, the copy buttons copy (or select without the Clipboard API), the
// form built from echo's schema calls it and shows the text, a generated tool's form turns
// its fields into the right JSON, pixel's image result shows as an <img>, the hostile tool's
// HTML shows as text, the page does not scroll sideways at 1280 and 390 pixels wide, and no
// console error or Content-Security-Policy violation happens.
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
    'scale-base': { type: 'string' },
    'scale-server': { type: 'string', default: 'many' },
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

async function checkClean(label, w, page) {
  const csp = await page.evaluate(() => window.__cspViolations || []).catch((e) => [`reading the violations: ${e}`]);
  check(`${label}: no console errors`, w.consoleErrors.length === 0, w.consoleErrors);
  check(`${label}: no Content-Security-Policy violations`, csp.length === 0, csp);
  check(`${label}: no page errors`, w.pageErrors.length === 0, w.pageErrors);
  check(`${label}: no failed requests`, w.failedRequests.length === 0, w.failedRequests);
  check(`${label}: no dialog opened`, w.dialogs.length === 0, w.dialogs);
}

async function shot(page, name, fullPage = true) {
  const file = path.join(opts.out, name);
  await page.screenshot({ path: file, fullPage });
  screenshots.push(file);
}

async function open(context, url, init) {
  const page = await context.newPage();
  if (init) await page.addInitScript(init);
  page.setDefaultTimeout(timeout);
  const w = watch(page);
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(`${e.violatedDirective}: ${e.blockedURI || 'inline'}`);
    });
  });
  const resp = await page.goto(url, { waitUntil: 'load' });
  check(`GET ${new URL(url).pathname}: HTTP 200`, resp && resp.status() === 200, resp ? `HTTP ${resp.status()}` : 'no response');
  const ct = resp ? (resp.headers()['content-type'] || '') : '';
  check(`GET ${new URL(url).pathname}: HTML`, ct.startsWith('text/html'), `Content-Type: ${ct}`);
  return { page, w };
}

// splitNames lists the server and tool names in the server list that are broken across
// lines although they would fit on one line of the page: a name (text without spaces) may
// wrap only when it is wider than the page's content.
async function splitNames(page) {
  return page.evaluate(() => {
    const main = document.querySelector('main') || document.body; // a page without <main> (the unsafe stand-ins)
    const ms = getComputedStyle(main);
    const room = main.clientWidth - parseFloat(ms.paddingLeft) - parseFloat(ms.paddingRight);
    const out = [];
    for (const el of document.querySelectorAll('table.servers td a, table.servers ul.toolnames code, table.servers td[data-label="Endpoint"] code')) {
      const text = el.textContent;
      if (/\s/.test(text)) continue; // a title may wrap between its words
      const lines = new Set([...el.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
      if (lines <= 1) continue;
      const probe = el.cloneNode(true);
      Object.assign(probe.style, { whiteSpace: 'nowrap', position: 'absolute', visibility: 'hidden' });
      el.parentElement.appendChild(probe);
      const need = probe.getBoundingClientRect().width;
      probe.remove();
      if (need <= room) out.push(`"${text}" on ${lines} lines (needs ${Math.round(need)}px of ${Math.round(room)}px)`);
    }
    return out;
  });
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
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(150);
    const sw = await sideways(page);
    check(`/mcp does not scroll sideways at ${width}px`, sw.scrollWidth <= sw.clientWidth, sw);
    const split = await splitNames(page);
    check(`/mcp splits no server or tool name that fits the page at ${width}px`, split.length === 0, split.slice(0, 5).join('; '));
  }
  await shot(page, 'mcp-index-390.png');
  await checkClean('/mcp', w, page);
  await page.close();
}

async function metaPage(context) {
  const url = `${base}/mcp/meta/${opts.server}`;
  const { page, w } = await open(context, url);
  const tool = opts.tool;
  const body = await page.locator('body').innerText();
  check(`meta page lists tool ${tool}`, body.includes(tool), 'tool name not in page text');
  check(`meta page shows the description "Echo a message back"`, body.includes('Echo a message back'));
  await openTool(page, tool);
  const form = page.locator(`form.try-it[data-tool="${tool}"]`);
  check(`meta page has a try-it form for ${tool}`, (await form.count()) === 1, `${await form.count()} forms`);
  if ((await form.count()) !== 1) {
    await shot(page, `meta-${opts.server}.png`);
    await checkClean(`/mcp/meta/${opts.server}`, w, page);
    return;
  }
  const toJSON = form.locator('button.try-it-mode');
  if ((await toJSON.count()) === 1) await toJSON.click(); // the form built from the schema → raw JSON
  const textarea = form.locator('textarea[name="arguments"]');
  const prefill = await textarea.inputValue();
  let prefillOK = true;
  try { JSON.parse(prefill); } catch { prefillOK = false; }
  check('try-it arguments are prefilled with JSON', prefillOK, prefill);

  await textarea.fill(JSON.stringify({ message: XSS_MESSAGE }));
  const result = page.locator(`.try-it-result[data-tool="${tool}"]`);
  await form.locator('button[type="submit"]').click();
  let status = null;
  try {
    await page.locator(`.try-it-result[data-tool="${tool}"][data-status]`).waitFor({ state: 'attached', timeout });
    status = await result.getAttribute('data-status');
  } catch (e) {
    check('try-it result gets data-status', false, `no data-status within ${timeout} ms; result text: ${await result.textContent().catch(() => '?')}`);
  }
  if (status !== null) {
    // The result as JSON: the raw view of a result shown as content, else the whole text.
    const rawView = result.locator('.try-it-raw');
    const text = (await rawView.count()) === 1 ? await rawView.textContent() : await result.textContent();
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
  await checkClean(`/mcp/meta/${opts.server}`, w, page);
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
  await checkClean(`/mcp/meta/${name}`, w, page);
  await page.close();
}

// openTool opens a tool listed as a closed <details> on a server's page (its details and
// form load then) and waits until it has loaded; a page without such a list is left as is.
async function openTool(page, tool) {
  const item = page.locator(`li.tool[data-tool="${tool}"] > details`);
  if ((await item.count()) !== 1) return;
  if (!(await item.evaluate((d) => d.open))) await item.locator('summary').click();
  await page.locator(`li.tool[data-tool="${tool}"] > details[data-loaded]:not([data-loaded="loading"])`)
    .waitFor({ state: 'attached', timeout });
}

// callTool submits a tool's try-it form and returns its result's status and element.
async function callTool(page, tool) {
  const result = page.locator(`.try-it-result[data-tool="${tool}"]`);
  await page.locator(`form.try-it[data-tool="${tool}"] button[type="submit"]`).click();
  try {
    await page.locator(`.try-it-result[data-tool="${tool}"][data-status]`).waitFor({ state: 'attached', timeout });
  } catch {
    return { status: null, result };
  }
  return { status: await result.getAttribute('data-status'), result };
}

// visibleTools are the names of the tools the list shows.
function visibleTools(page) {
  return page.evaluate(() => Array.from(document.querySelectorAll('li.tool'))
    .filter((li) => li.offsetParent !== null).map((li) => li.getAttribute('data-tool')));
}

// sideways reports how far the page scrolls sideways and the elements that stick out.
function sideways(page) {
  return page.evaluate(() => {
    const de = document.documentElement;
    const wide = Array.from(document.querySelectorAll('body *'))
      .filter((e) => e.getBoundingClientRect().right > de.clientWidth + 1)
      .slice(0, 5).map((e) => `${e.tagName.toLowerCase()}.${e.className}#${e.id}`);
    return { scrollWidth: de.scrollWidth, clientWidth: de.clientWidth, wide };
  });
}

const HOSTILE_TOOL_TEXT = '<script>alert("tool")</script><img src=x onerror=alert(4)>';

async function scalePage(context) {
  const sbase = opts['scale-base'].replace(/\/+$/, '');
  const name = opts['scale-server'];
  const label = `/mcp/meta/${name}`;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sbase }).catch(() => {});
  const started = Date.now();
  const { page, w } = await open(context, `${sbase}${label}`);
  await page.setViewportSize({ width: 1280, height: 900 });
  const total = await page.locator('li.tool').count();
  check(`${label} lists every tool`, total === 1223, `${total} tools, loaded in ${Date.now() - started} ms`);
  const setupFirst = await page.evaluate(() => {
    const s = document.getElementById('setup'), t = document.getElementById('tools');
    return !!s && !!t && (s.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
  });
  check(`${label}: 'Connect a client' comes before the tools`, setupFirst);

  // The search box filters the list by name and by description.
  const search = page.locator('#search-tools');
  check(`${label} has a search box`, (await search.count()) === 1);
  if ((await search.count()) === 1) {
    await search.fill('repos_list');
    const shown = await visibleTools(page);
    const want = await page.evaluate(() => Array.from(document.querySelectorAll('li.tool'))
      .filter((li) => li.getAttribute('data-tool').includes('repos_list')).length);
    check('search "repos_list" shows exactly the repos_list tools',
      shown.length === want && want > 0 && shown.every((n) => n.includes('repos_list')), `${shown.length} shown, want ${want}: ${shown.slice(0, 4)}`);
    const groups = await page.locator('section.tool-group:visible').count();
    const toc = await page.locator('nav.toc li:visible').count();
    check('search hides the other groups and their table of contents entries', groups === 1 && toc === 1, `${groups} groups, ${toc} entries shown`);
    await search.fill('UNBROKEN');
    const byDesc = await visibleTools(page);
    check('search matches descriptions (case-insensitively)', byDesc.length === 1 && byDesc[0].startsWith('averyvery'), byDesc.join(', '));
    await search.fill('zzz nothing matches');
    check('search with no match says so', (await visibleTools(page)).length === 0 && (await page.locator('#search-none').isVisible()));
    await search.fill('');
    check('clearing the search shows every tool again', (await visibleTools(page)).length === total);
  }

  // The table of contents links land on their group.
  const tocLink = page.locator('nav.toc a[href="#group-repos"]');
  check(`${label} has a table of contents with repos`, (await tocLink.count()) === 1);
  if ((await tocLink.count()) === 1) {
    await tocLink.click();
    await page.waitForTimeout(100);
    const at = await page.evaluate(() => {
      const r = document.getElementById('group-repos').getBoundingClientRect();
      return { hash: location.hash, top: Math.round(r.top), height: innerHeight };
    });
    check('the repos link lands on the repos group', at.hash === '#group-repos' && at.top >= -2 && at.top < at.height / 2, at);
  }

  // Copy buttons: with the Clipboard API they copy, without it they select the text.
  const copyButtons = page.locator('button.copy-button');
  check(`${label} has copy buttons`, (await copyButtons.count()) >= 5, `${await copyButtons.count()} buttons`);
  const endpoint = `${sbase}/mcp/${name}`;
  if ((await copyButtons.count()) >= 1) {
    await copyButtons.first().click();
    await page.locator('button.copy-button[data-copied]').first().waitFor({ state: 'attached', timeout }).catch(() => {});
    const state = await copyButtons.first().getAttribute('data-copied');
    const clip = state === 'copied' ? await page.evaluate(() => navigator.clipboard.readText()).catch((e) => `readText: ${e}`) : null;
    check('the first copy button copies the Streamable HTTP URL', state === 'copied' && clip === endpoint, { state, clip });
  }
  // The bare page is opened at #tool-echo: that opens (and loads) echo.
  const bare = await open(context, `${sbase}${label}#tool-echo`, () => {
    Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined });
  });
  const bareButton = bare.page.locator('button.copy-button').first();
  if ((await bare.page.locator('button.copy-button').count()) >= 1) {
    await bareButton.click();
    const state = await bareButton.getAttribute('data-copied');
    const selected = await bare.page.evaluate(() => String(window.getSelection()));
    check('without the Clipboard API a copy button selects the text', state === 'selected' && selected === endpoint, { state, selected });
  }
  const linked = await bare.page.locator('li.tool[data-tool="echo"] > details[data-loaded="ok"] form.try-it')
    .waitFor({ state: 'attached', timeout }).then(() => true, () => false);
  check('a link to #tool-echo opens echo with its form', linked);
  await checkClean(`${label} without the Clipboard API`, bare.w, bare.page);
  await bare.page.close();

  // The form built from echo's schema.
  await openTool(page, 'echo');
  const message = page.locator('form.try-it[data-tool="echo"] [data-arg="message"]');
  check('echo\'s form has a field for message', (await message.count()) === 1);
  check('echo\'s message is marked required', (await page.locator('form.try-it[data-tool="echo"] .field[data-field="message"] .required').count()) === 1);
  if ((await message.count()) === 1) {
    await message.fill(XSS_MESSAGE);
    const { status, result } = await callTool(page, 'echo');
    const text = status ? await result.locator('pre.content-text').first().textContent() : null;
    check('echo called from the form shows the message as text', status === 'ok' && text === XSS_MESSAGE + '\n', { status, text });
    check('echo\'s result has no <script> element', (await result.locator('script').count()) === 0);
  }

  // A generated tool's form: each kind of field, and the JSON it makes.
  const gen = 'repos_list_0008';
  await openTool(page, gen);
  const form = page.locator(`form.try-it[data-tool="${gen}"]`);
  const kinds = await form.locator('.field').evaluateAll((fs) => Object.fromEntries(fs.map((f) => [f.getAttribute('data-field'), f.getAttribute('data-kind')]).sort()));
  const wantKinds = { archived: 'boolean', direction: 'enum', filter: 'json', labels: 'list', owner: 'string', per_page: 'integer' };
  check(`${gen}'s form has a field of the right kind per property`, JSON.stringify(kinds) === JSON.stringify(wantKinds), kinds);
  if ((await form.count()) === 1) {
    await form.locator('[data-arg="owner"]').fill('octo');
    await form.locator('textarea[data-arg="labels"]').fill('bug\ngood first issue');
    await form.locator('textarea[data-arg="filter"]').fill('{"state": "open"}');
    await form.locator('select[data-arg="direction"]').selectOption({ label: 'desc' });
    await form.locator('button.try-it-mode').click();
    let args = null;
    try { args = JSON.parse(await form.locator('textarea[name="arguments"]').inputValue()); } catch { /* reported below */ }
    const wantArgs = { direction: 'desc', filter: { state: 'open' }, labels: ['bug', 'good first issue'], owner: 'octo', per_page: 30 };
    const sorted = args && Object.fromEntries(Object.entries(args).sort());
    check(`${gen}'s form makes the arguments JSON`, JSON.stringify(sorted) === JSON.stringify(wantArgs), args);
    await form.locator('button.try-it-mode').click(); // back to the form
    await form.locator('[data-arg="owner"]').fill('');
    await form.locator('button[type="submit"]').click();
    const problem = form.locator('.form-problem');
    check(`${gen}'s form refuses an empty required field`, (await problem.isVisible()) && (await problem.textContent()).includes('owner is required'),
      await problem.textContent());
    // Past the form, the server's own validation answers with an isError result.
    await form.locator('button.try-it-mode').click();
    await form.locator('textarea[name="arguments"]').fill('{}');
    const { status, result } = await callTool(page, gen);
    const said = status ? await result.locator('p.error').first().textContent().catch(() => '') : '';
    check(`${gen} called without owner shows the isError result as an error`, status === 'error' && said.includes('The tool reported an error'), { status, said });
  }

  // An image result is an <img>.
  await openTool(page, 'pixel');
  const pixel = await callTool(page, 'pixel');
  const img = pixel.result.locator('img');
  const loaded = (await img.count()) === 1 ? await img.evaluate((i) => ({ src: i.src.slice(0, 30), w: i.naturalWidth, done: i.complete })) : null;
  check('pixel\'s image result shows as a loaded <img> with a data: URL', pixel.status === 'ok' && loaded && loaded.src.startsWith('data:image/png;base64,') && loaded.w === 1, loaded);

  // HTML in a tool's description and schema shows as text.
  await openTool(page, 'hostile');
  const hostileText = await page.locator('li.tool[data-tool="hostile"]').innerText();
  const times = hostileText.split(HOSTILE_TOOL_TEXT).length - 1;
  check('the hostile tool\'s description and schema titles show as text', times >= 4, `${times} times in: ${hostileText.slice(0, 300)}`);
  check(`${label} has no injected <img src=x> or <script>`, (await page.locator('img[src="x"], main script').count()) === 0);

  // Long names and schemas wrap: no sideways scroll at desktop and phone widths.
  await openTool(page, (await page.locator('li.tool[data-tool^="averyvery"]').getAttribute('data-tool')));
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(150);
    const sw = await sideways(page);
    check(`${label} does not scroll sideways at ${width}px`, sw.scrollWidth <= sw.clientWidth, sw);
    await page.locator('.try-it-result[data-tool="echo"]').scrollIntoViewIfNeeded().catch(() => {});
    await shot(page, `meta-${name}-${width}.png`, false);
  }
  await page.waitForTimeout(300);
  await checkClean(label, w, page);
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
    await checkClean(label, w, page);
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
    if (opts['scale-base']) await scalePage(context);
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
