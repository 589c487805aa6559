#!/usr/bin/env node
// Builds the browser bundles of @fw/client from its compiled ES modules (run after `tsc -b`;
// `npm run build` does both): dist/browser/client.js, one minified ES module, and
// dist/browser/client.global.js, an IIFE for a plain <script> that defines `fw` (fw.connect).
// The runtime serves them at <fw>/client.js and <fw>/client.global.js. Prints the sizes, and
// fails when the gzipped ES module (or the room layer) exceeds the budget (FW_CLIENT_BUDGET bytes, default 8 KB).
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = `${root}dist/index.js`;
const out = `${root}dist/browser/`;
const BUDGET = Number(process.env.FW_CLIENT_BUDGET ?? 8192);

const common = {
  entryPoints: [entry],
  bundle: true,
  minify: true,
  sourcemap: 'linked',
  platform: 'browser',
  target: ['es2022'],
  legalComments: 'none',
  logLevel: 'warning',
};

await build({ ...common, format: 'esm', outfile: `${out}client.js` });
await build({ ...common, format: 'iife', globalName: 'fw', outfile: `${out}client.global.js` });
// The room layer apart (docs/rooms.md): it takes a client and needs none of its code.
await build({ ...common, entryPoints: [`${root}dist/room.js`], format: 'esm', outfile: `${out}room.js` });

let over = false;
// The budget is the ES module's (docs/client.md) and the room layer's; the IIFE is the same code
// in a wrapper with its exports as a global object (~230 bytes more), printed for reference.
for (const name of ['client.js', 'client.global.js', 'room.js']) {
  const code = readFileSync(out + name);
  const gzip = gzipSync(code, { level: 9 }).length;
  const brotli = brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  const budgeted = name !== 'client.global.js';
  console.log(
    `@fw/client ${name}: ${code.length} bytes, ${gzip} gzipped, ${brotli} brotli${budgeted ? ` (budget ${BUDGET} gzipped)` : ''}`,
  );
  if (budgeted && gzip > BUDGET) over = true;
}
if (over) {
  console.error(`@fw/client: the browser bundle is over its ${BUDGET}-byte gzip budget`);
  process.exit(1);
}
