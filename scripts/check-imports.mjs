#!/usr/bin/env node
// Every package must declare what its published files import. Scans the built JavaScript and
// declaration files each package publishes (its package.json `files`) for bare specifiers and
// fails when one is not a dependency or peer dependency of that package. Also fails when:
//   - a declaration file imports a package that ships no types of its own and `@types/<name>` is
//     not declared (a consumer's compiler would not find the types);
//   - JavaScript imports an *optional* peer statically (it would crash the import of the whole
//     package when the peer is absent; optional peers are loaded with `import()` and a clear error).
// Run after `tsc -b`: `node scripts/check-imports.mjs` (part of `npm run pack-check`).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const PUBLISHED = ['protocol', 'runtime', 'client', 'store', 'mcp', 'agent', 'admin', 'redis', 'app'];
/** Published too, but a tool rather than a library: packed and checked, not installed into an app. */
export const SCAFFOLDER = 'create-fw';

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function isBare(specifier) {
  return !specifier.startsWith('.') && !specifier.startsWith('/') && !specifier.startsWith('#') && !/^[a-z][a-z0-9+.-]*:/i.test(specifier);
}

function* walk(path) {
  if (!existsSync(path)) return;
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path)) yield* walk(join(path, entry));
  } else if (/\.(m?js|d\.ts)$/.test(path)) {
    yield path;
  }
}

/** Strips comments so that an example in a doc comment is not taken for an import. */
function stripComments(source) {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Every bare specifier in one file, with whether it is a static (top-level) JavaScript import. */
function specifiers(file) {
  const source = stripComments(readFileSync(file, 'utf8'));
  const found = [];
  const add = (specifier, kind) => {
    if (isBare(specifier) && !isBuiltin(specifier)) found.push({ specifier, kind });
  };
  for (const m of source.matchAll(/(?:^|[\s;}])(?:import|export)\s+(type\s+)?(?:[^'"`;]*?\s+from\s+)?['"]([^'"]+)['"]/g))
    add(m[2], m[1] ? 'type' : 'static');
  for (const m of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) add(m[1], 'dynamic');
  for (const m of source.matchAll(
    /\brequire(?:\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)|createRequire\([^)]*\)(?:\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)/g,
  ))
    add(m[1] ?? m[2], 'dynamic');
  for (const m of source.matchAll(/\bdeclare\s+module\s+['"]([^'"]+)['"]/g)) add(m[1], 'type');
  return found;
}

/** Whether the installed package `name` ships its own type declarations. */
function shipsTypes(name, fromDir) {
  for (let dir = fromDir; ; dir = join(dir, '..')) {
    const manifest = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
      // TypeScript also finds a declaration file next to the entry point (kysely ships that way).
      const dot = pkg.exports?.['.'];
      const entry = typeof dot === 'string' ? dot : (dot?.import ?? dot?.default ?? pkg.module ?? pkg.main);
      const sibling = typeof entry === 'string' && existsSync(join(dir, 'node_modules', name, entry.replace(/\.[cm]?js$/, '.d.ts')));
      return Boolean(
        pkg.types ||
          pkg.typings ||
          JSON.stringify(pkg.exports ?? {}).includes('"types"') ||
          existsSync(join(dir, 'node_modules', name, 'index.d.ts')) ||
          sibling,
      );
    }
    if (dir === root || dir === join(dir, '..')) return true; // not installed here: nothing to say
  }
}

export function checkPackage(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const deps = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})]);
  const peers = new Set(Object.keys(pkg.peerDependencies ?? {}));
  const optionalPeers = new Set(
    Object.entries(pkg.peerDependenciesMeta ?? {})
      .filter(([, m]) => m.optional)
      .map(([k]) => k),
  );
  const declared = (name) => name === pkg.name || deps.has(name) || peers.has(name);
  const problems = [];
  for (const entry of pkg.files ?? []) {
    for (const file of walk(join(dir, entry))) {
      const isTypes = file.endsWith('.d.ts');
      const where = relative(root, file);
      for (const { specifier, kind } of specifiers(file)) {
        const name = packageName(specifier);
        if (!declared(name)) {
          problems.push(`${where}: imports '${specifier}', but ${pkg.name} does not declare '${name}'`);
          continue;
        }
        if (isTypes && name !== pkg.name && !name.startsWith('@types/') && !shipsTypes(name, dir) && !declared(`@types/${name}`)) {
          problems.push(`${where}: its public types use '${name}', which ships no types: declare '@types/${name}' in ${pkg.name}`);
        }
        if (!isTypes && kind === 'static' && optionalPeers.has(name)) {
          problems.push(`${where}: imports the optional peer '${name}' statically; load it with import() and a clear error`);
        }
      }
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let failed = false;
  for (const name of [...PUBLISHED, SCAFFOLDER]) {
    const dir = join(root, 'packages', name);
    if (!existsSync(join(dir, 'dist', 'index.js'))) {
      console.error(`packages/${name}: dist is missing; run \`npx tsc -b\` first`);
      failed = true;
      continue;
    }
    const problems = checkPackage(dir);
    for (const p of problems) console.error(p);
    if (problems.length > 0) failed = true;
    else console.log(`packages/${name}: every import is declared`);
  }
  process.exit(failed ? 1 : 0);
}
