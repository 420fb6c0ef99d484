// Regenerates block-metas.json: {category, valueType, initValue} of every default block type
// of Lowdefy 4.0.0-rc.11, read from the published block packages without installing them (they
// pull in React and antd, which a headless engine does not need).
//
// Usage (needs the npm registry): node gen-metas.mjs > block-metas.json
// It runs `npm pack` for each block package into a temporary folder and reads each block's
// `X.meta = {...}` from the package's dist files.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const defaultTypesMap = (await import(new URL('./node_modules/@lowdefy/build/dist/defaultTypesMap.js', import.meta.url))).default;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lowdefy-metas-'));
const packages = [...new Set(Object.values(defaultTypesMap.blocks).map((b) => b.package))].sort();
const dirs = {};
for (const pkg of packages) {
  const out = execFileSync('npm', ['pack', '--silent', `${pkg}@4.0.0-rc.11`], { cwd: tmp }).toString().trim().split('\n').pop();
  const dir = path.join(tmp, out.replace(/\.tgz$/, ''));
  fs.mkdirSync(dir);
  execFileSync('tar', ['xzf', path.join(tmp, out), '-C', dir]);
  dirs[pkg] = path.join(dir, 'package', 'dist');
}

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.js') ? [path.join(dir, e.name)] : []
  );
}

// metaOf finds `<Name>.meta = {` (or a default-export object's `meta: {`) in the source and
// evaluates the object literal without its icons and styles entries.
function metaOf(src) {
  const m = /\.meta = \{/.exec(src);
  if (!m) return null;
  let i = m.index + m[0].length - 1;
  let depth = 0;
  let end = i;
  for (; end < src.length; end++) {
    if (src[end] === '{' || src[end] === '[') depth++;
    if (src[end] === '}' || src[end] === ']') depth--;
    if (depth === 0) break;
  }
  const literal = src.slice(i, end + 1);
  // Drop keys whose values reference other modules (icons, styles).
  const cleaned = literal.replace(/\b(icons|styles)\s*:\s*\[[^\]]*\]\s*,?/gs, '');
  // eslint-disable-next-line no-new-func
  const meta = Function(`return (${cleaned});`)();
  const out = { category: meta.category };
  if (meta.valueType !== undefined) out.valueType = meta.valueType;
  if (meta.initValue !== undefined) out.initValue = meta.initValue;
  return out;
}

const metas = {};
for (const [typeName, def] of Object.entries(defaultTypesMap.blocks).sort(([a], [b]) => (a < b ? -1 : 1))) {
  const candidates = files(dirs[def.package]).filter((f) => path.basename(f) === `${def.originalTypeName}.js`);
  let meta = null;
  for (const f of candidates) {
    meta = metaOf(fs.readFileSync(f, 'utf8'));
    if (meta) break;
  }
  if (!meta) {
    console.error(`no meta for ${typeName} in ${def.package}`);
    process.exitCode = 1;
    continue;
  }
  metas[typeName] = { package: def.package, ...meta };
}
fs.rmSync(tmp, { recursive: true, force: true });
process.stdout.write(JSON.stringify(metas, null, 2) + '\n');
