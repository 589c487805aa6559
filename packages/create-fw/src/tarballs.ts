import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** One packed package: where its tarball is and what its package.json says. */
export interface Tarball {
  name: string;
  version: string;
  file: string;
  /** Its dependencies and its required (not optional) peers, by name. */
  needs: string[];
}

/**
 * The packed packages in `dir` (`npm run pack` in an fw clone writes them), by name. Each
 * tarball's package.json is read from the archive itself, so a renamed file cannot mislead.
 */
export function readTarballs(dir: string): Map<string, Tarball> {
  const out = new Map<string, Tarball>();
  const abs = resolve(dir);
  let names: string[];
  try {
    names = readdirSync(abs).filter((f) => f.endsWith('.tgz'));
  } catch {
    throw new Error(`--from ${dir}: no such directory (run \`npm run pack\` in your fw clone; it prints the directory)`);
  }
  for (const f of names) {
    const pkg = packageJsonOf(join(abs, f)) as {
      name: string;
      version: string;
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    const peers = Object.keys(pkg.peerDependencies ?? {}).filter((p) => !pkg.peerDependenciesMeta?.[p]?.optional);
    out.set(pkg.name, {
      name: pkg.name,
      version: pkg.version,
      file: join(abs, f),
      needs: [...Object.keys(pkg.dependencies ?? {}), ...peers],
    });
  }
  return out;
}

/**
 * The fw packages an app needs from the tarballs: those it names and every @fw package they
 * need in turn. A tarball's own @fw dependencies (`^0.1.0`) are met by these, installed beside
 * it, instead of being looked up on a registry that does not have them yet.
 */
export function closure(names: readonly string[], tarballs: ReadonlyMap<string, Tarball>): { found: Tarball[]; missing: string[] } {
  const found = new Map<string, Tarball>();
  const missing = new Set<string>();
  const visit = (name: string): void => {
    if (found.has(name) || missing.has(name)) return;
    const t = tarballs.get(name);
    if (!t) {
      missing.add(name);
      return;
    }
    found.set(name, t);
    for (const n of t.needs) if (n.startsWith('@fw/')) visit(n);
  };
  for (const n of names) visit(n);
  return { found: [...found.values()], missing: [...missing] };
}

/** `package/package.json` out of a .tgz (a gzipped ustar archive, as `npm pack` writes it). */
function packageJsonOf(file: string): unknown {
  const tar = gunzipSync(readFileSync(file));
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const name = cString(header.subarray(0, 100));
    const prefix = cString(header.subarray(345, 500));
    const size = Number.parseInt(cString(header.subarray(124, 136)).trim() || '0', 8);
    const path = prefix ? `${prefix}/${name}` : name;
    const body = offset + 512;
    if (path === 'package/package.json') return JSON.parse(tar.subarray(body, body + size).toString('utf8'));
    offset = body + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${file}: no package/package.json inside (not a package made by npm pack)`);
}

function cString(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return Buffer.from(end < 0 ? bytes : bytes.subarray(0, end)).toString('utf8');
}
