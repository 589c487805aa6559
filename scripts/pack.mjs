#!/usr/bin/env node
// `npm run pack`: the fw packages as the registry would serve them, for installing from a clone
// until they are published. Builds (the npm script does), then packs every publishable package
// and the create-fw scaffolder into packed/ (or the directory given), replacing older tarballs,
// and prints how to use them:
//
//   npm run pack                      # → packed/fw-runtime-0.1.0.tgz, …, create-fw-0.1.0.tgz
//   npm run pack -- /some/other/dir
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PUBLISHED, SCAFFOLDER } from './check-imports.mjs';
import { packPackages, root } from './lib/packing.mjs';
import { closure, readTarballs } from '../packages/create-fw/dist/tarballs.js';

const dest = resolve(process.argv[2] ?? join(root, 'packed'));
mkdirSync(dest, { recursive: true });
for (const f of readdirSync(dest)) if (f.endsWith('.tgz')) rmSync(join(dest, f));

const packed = await packPackages([...PUBLISHED, SCAFFOLDER], dest);
for (const p of packed) console.log(`${p.filename.padEnd(28)} ${p.name}@${p.version}`);
const scaffolder = packed.find((p) => p.name === 'create-fw')?.filename;
console.log(`
${packed.length} tarballs in ${dest}

A new app from them (outside this clone):
  npx --yes --package ${join(dest, scaffolder)} create-fw my-app --from ${dest}

Or add fw to an existing app (with "type": "module"), the runtime and the fw packages it needs:
  npm install ${closure(['@fw/runtime'], readTarballs(dest))
    .found.map((t) => t.file)
    .join(' ')}
Add @fw/mcp, @fw/agent, @fw/admin or @fw/redis the same way, with the @fw packages each needs from
this directory too (they are not on the registry yet): create-fw --from works that out for you.`);
