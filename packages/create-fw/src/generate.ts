import type { Part } from './parts.js';
import { appTs, greeterTs, mainTs } from './templates/app.js';
import { packageJson, type PackageSource } from './templates/package-json.js';
import { gitignore, readmeMd } from './templates/readme.js';
import { appTestTs } from './templates/test.js';
import { tsconfigJson } from './templates/tsconfig.js';

export interface AppPlan {
  /** The package name (the directory's name unless given). */
  name: string;
  parts: ReadonlySet<Part>;
  source: PackageSource;
}

/** Every file of the new app, by path relative to its directory. */
export function generate(plan: AppPlan): Map<string, string> {
  const files = new Map<string, string>([
    ['package.json', packageJson(plan.name, plan.parts, plan.source)],
    ['tsconfig.json', tsconfigJson()],
    ['src/app.ts', appTs(plan.parts)],
    ['src/main.ts', mainTs()],
    ['test/app.test.ts', appTestTs(plan.parts)],
    ['README.md', readmeMd(plan.name, plan.parts)],
    ['.gitignore', gitignore()],
  ]);
  if (plan.parts.has('agents')) files.set('src/greeter.ts', greeterTs());
  return files;
}

/** npm's rules for a package name, the part that matters for a new app: lower case, URL-safe. */
export function checkPackageName(name: string): string | undefined {
  if (name.length === 0 || name.length > 214) return 'must be 1 to 214 characters';
  if (!/^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(name))
    return 'may contain only lower-case letters, digits, - . _ ~ (and one @scope/)';
  return undefined;
}
