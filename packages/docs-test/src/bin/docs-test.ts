import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkDocs, summary } from '../check-docs.js';
import { formatFailure } from '../failure.js';

/**
 * `node packages/docs-test/dist/bin/docs-test.js [file.md …]` (or `npm run docs-test`): the docs
 * test over README.md and docs/*.md, or the files given (relative to the repository). Prints a
 * summary, then each failure as `file:line (stage): message` with the example's line or output.
 */
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const given = process.argv.slice(2);
const files =
  given.length > 0
    ? given
    : [
        'README.md',
        ...readdirSync(`${root}docs`)
          .filter((f) => f.endsWith('.md'))
          .sort()
          .map((f) => `docs/${f}`),
      ];
const report = await checkDocs({ root, files });
console.log(summary(report));
if (report.failures.length > 0) {
  console.log(`\n${report.failures.length} failing:\n`);
  for (const f of report.failures) console.log(`${formatFailure(f)}\n`);
  process.exitCode = 1;
}
