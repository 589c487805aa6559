import { packagesFor, devPackagesFor, type Part } from '../parts.js';
import { closure, type Tarball } from '../tarballs.js';

/** Where the app's fw packages come from: the registry (a version range) or packed tarballs. */
export type PackageSource = { kind: 'registry'; range: string } | { kind: 'tarballs'; tarballs: ReadonlyMap<string, Tarball> };

/** Versions of the tools the app builds and tests with (the ones fw itself is built with). */
export const TOOL_VERSIONS = { typescript: '~5.9.3', '@types/node': '^22.0.0' } as const;

/**
 * The app's package.json: ES modules (`"type": "module"`, which fw's examples assume), `npm start`
 * builds and runs it, `npm test` builds and runs its test. With tarballs, every @fw package is a
 * `file:` dependency (the ones the app imports and those they need), so npm never asks the
 * registry for an fw package; the caller has checked that the tarballs hold all of them.
 */
export function packageJson(name: string, parts: ReadonlySet<Part>, source: PackageSource): string {
  let prod = packagesFor(parts);
  let dev = devPackagesFor(parts);
  const spec = (pkg: string): string => (source.kind === 'registry' ? source.range : `file:${source.tarballs.get(pkg)!.file}`);
  if (source.kind === 'tarballs') {
    // Every @fw package the app's dependencies need comes from the tarballs too, and is a
    // dependency itself: a dev dependency would be missing from a production install.
    prod = closure(prod, source.tarballs).found.map((t) => t.name);
    dev = closure(dev, source.tarballs).found.map((t) => t.name);
  }
  dev = dev.filter((p) => !prod.includes(p));
  const pkg = {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=22' },
    scripts: {
      build: 'tsc -p .',
      start: 'npm run build --silent && node dist/src/main.js',
      // The shell expands the glob: Node 20 reads a directory after --test, Node 22 and 24 only files or globs.
      test: 'npm run build --silent && node --test dist/test/*.test.js',
    },
    dependencies: Object.fromEntries(prod.sort().map((p) => [p, spec(p)])),
    devDependencies: Object.fromEntries([...dev.map((p) => [p, spec(p)] as const), ...Object.entries(TOOL_VERSIONS)].sort()),
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}
