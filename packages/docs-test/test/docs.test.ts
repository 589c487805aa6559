/**
 * The docs test itself: every ts/js/shell example of README.md and docs/*.md compiles, every
 * complete program runs briefly against loopback, every shell example parses and the curl ones
 * answer (issue #29). A failure prints each broken example as `file:line (stage): error`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkDocs, formatFailure, summary } from '../dist/index.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

test('every example in README.md and docs/*.md compiles, and runs where it is a program', async () => {
  const files = [
    'README.md',
    ...readdirSync(`${root}docs`)
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
  const report = await checkDocs({ root, files });
  console.log(summary(report));
  assert.ok(report.run > 0 && report.compiled > report.run && report.shellRun > 0, summary(report));
  assert.equal(report.failures.length, 0, `\n${report.failures.map(formatFailure).join('\n\n')}\n`);
});
