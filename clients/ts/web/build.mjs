// Builds the sign-in page's bundle (esbuild) into server/web/assets, which
// the Go binary embeds: app.js (the page and @kexlab/client) and worker.js
// (the key-stretching Web Worker). The page's HTML and CSS, which app.ts
// drives by their element ids, are server/web/page/index.html and app.css.
//
//   node web/build.mjs [OUTDIR]     the bundle (default ../../server/web/assets)
//   node web/build.mjs --sizes      minified + gzip size of each scheme's client code
//
// The output is deterministic for a given lockfile, so `make web-check`
// can rebuild it and compare with the committed files.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const common = { bundle: true, minify: true, format: 'esm', target: 'es2022', platform: 'browser', legalComments: 'eof', logLevel: 'warning' };

if (process.argv[2] === '--sizes') {
  // Each scheme's client code with what it pulls in (its libraries, the
  // byte helpers and errors) and scrypt, as a site that uses only that
  // scheme ships it; then scrypt alone, the whole client and the page.
  const scrypt = " export { scryptHere } from './src/stretch.js';";
  const entries = {
    opaque: "export { OpaqueClient, scryptKSF } from './src/opaque.js';" + scrypt,
    spake2plus: "export { spake2plusRegister, SPAKE2PlusProver } from './src/spake2plus.js';" + scrypt,
    'srp (2048 and 3072)': "export { SRPParams, SRPClient, group2048, group3072 } from './src/srp.js';" + scrypt,
    apakepq: "export { apakepqRegister, APAKEPQClient } from './src/apakepq.js';" + scrypt,
    'scrypt alone': "export { scryptHere } from './src/stretch.js';",
    'client (all schemes)': "export * from './src/index.js';",
  };
  const rows = [];
  for (const [name, contents] of Object.entries(entries)) {
    const r = await build({ ...common, stdin: { contents, resolveDir: root, loader: 'ts' }, write: false });
    const b = r.outputFiles[0].contents;
    rows.push({ name, min: b.length, gz: gzipSync(b, { level: 9 }).length });
  }
  const out = await build({ ...common, entryPoints: { app: path.join(root, 'web/app.ts'), worker: path.join(root, 'src/worker.ts') }, outdir: '/tmp', write: false });
  for (const f of out.outputFiles) rows.push({ name: `page ${path.basename(f.path)}`, min: f.contents.length, gz: gzipSync(f.contents, { level: 9 }).length });
  console.log(JSON.stringify(rows));
  for (const r of rows) console.error(`${r.name.padEnd(24)} ${String(r.min).padStart(8)} B minified ${String(r.gz).padStart(7)} B gzip`);
  process.exit(0);
}

const out = path.resolve(process.argv[2] ?? path.join(root, '../../server/web/assets'));
mkdirSync(out, { recursive: true });
for (const f of readdirSync(out)) rmSync(path.join(out, f), { recursive: true });
await build({ ...common, entryPoints: { app: path.join(root, 'web/app.ts'), worker: path.join(root, 'src/worker.ts') }, outdir: out });
