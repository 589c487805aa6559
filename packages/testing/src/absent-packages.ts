import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Node arguments (`args`) that make the named packages (and their subpaths) absent for a child process,
 * as if they were not installed: a module customization hook refuses to resolve them with the
 * ERR_MODULE_NOT_FOUND error Node gives for a missing package, for `import`, `import()` and
 * `import.meta.resolve` alike. In this monorepo every optional package is installed, so this is
 * how a test meets an app that lacks one. Prefix names (`@ai-sdk/`) hide a whole scope.
 */
export function hidePackages(names: readonly string[]): { args: string[]; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'fw-absent-'));
  const hooks = `
const hidden = ${JSON.stringify(names)};
export async function resolve(specifier, context, next) {
  if (hidden.some((n) => specifier === n || specifier.startsWith(n.endsWith('/') ? n : n + '/'))) {
    const err = new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL);
    err.code = 'ERR_MODULE_NOT_FOUND';
    throw err;
  }
  return next(specifier, context);
}
`;
  writeFileSync(join(dir, 'hooks.mjs'), hooks);
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(new URL(`file://${join(dir, 'hooks.mjs')}`).href)});\n`,
  );
  return { args: ['--import', join(dir, 'register.mjs')], remove: () => rmSync(dir, { recursive: true, force: true }) };
}
