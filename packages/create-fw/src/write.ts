import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Writes the files under `dir`, which must not exist or be empty: the scaffolder never overwrites
 * anything (a `.git` directory alone is allowed, for `git init` first).
 */
export function writeApp(dir: string, files: ReadonlyMap<string, string>): void {
  if (existsSync(dir)) {
    const present = readdirSync(dir).filter((f) => f !== '.git');
    if (present.length > 0)
      throw new Error(`${dir} is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}): choose a new directory`);
  }
  for (const [path, text] of files) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
}
