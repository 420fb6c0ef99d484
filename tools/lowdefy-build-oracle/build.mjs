// Runs the real Lowdefy build (@lowdefy/build 4.0.0-rc.11) on one app, as an oracle for the
// Go loader tests in internal/lowdefy/app.
//
// Usage: node build.mjs CONFIG_DIR OUT_DIR
//
// Writes the build artifacts to OUT_DIR/build (the layout of .lowdefy/server/build) and a
// scratch server folder to OUT_DIR/server (the build rewrites its package.json and copies
// public files there). Prints one JSON line {"ok":bool,"warnings":[...],"error":"..."} to stdout.
import fs from 'node:fs';
import path from 'node:path';
import build from '@lowdefy/build';

const [configDir, outDir] = process.argv.slice(2);
if (!configDir || !outDir) {
  console.error('usage: node build.mjs CONFIG_DIR OUT_DIR');
  process.exit(2);
}

const serverDir = path.resolve(outDir, 'server');
const buildDir = path.resolve(outDir, 'build');
fs.mkdirSync(path.join(serverDir, 'public_default'), { recursive: true });
fs.writeFileSync(
  path.join(serverDir, 'package.json'),
  JSON.stringify({ name: '@lowdefy/server', version: '4.0.0-rc.11', private: true, dependencies: {} }, null, 2)
);

const warnings = [];
const logger = {
  info: () => {},
  log: () => {},
  succeed: () => {},
  debug: () => {},
  warn: (msg) => { warnings.push(String(msg)); },
  error: (msg) => { warnings.push('error: ' + String(msg)); },
};

try {
  await build({
    directories: {
      config: path.resolve(configDir),
      build: buildDir,
      server: serverDir,
    },
    logger,
    stage: 'prod',
  });
  process.stdout.write(JSON.stringify({ ok: true, warnings }) + '\n');
} catch (err) {
  process.stdout.write(JSON.stringify({ ok: false, warnings, error: String(err && err.message || err) }) + '\n');
  process.exit(1);
}
