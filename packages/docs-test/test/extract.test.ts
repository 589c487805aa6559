/**
 * The docs test's own test: what it extracts and how it reads markers, and, on a Markdown file
 * written here with deliberately broken examples, that each breakage fails with the file, the
 * line and the error, while a marker keeps an example it names from failing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkDocs, extractBlocks, formatFailure, MarkerError, parseMarker } from '../dist/index.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fence = '```';

test('extracts ts/js/shell fences with their line, marker and section; other languages are not read', () => {
  const md = [
    '# Title', //                                   1
    '',
    '```json',
    '{ "not": "read" }',
    '```', //                                       5
    '## Section',
    '<!-- docs-test: fragment given: render, x -->',
    '<!-- pack-check: name -->',
    '',
    '```ts', //                                     10
    'render(x);',
    '```',
    '1. a list item',
    '   ```bash',
    '   curl -s localhost:8080/fw/health', //       15
    '   ```',
  ].join('\n');
  const blocks = extractBlocks('doc.md', md);
  assert.deepEqual(
    blocks.map((b) => [b.line, b.language, b.code, b.marker, b.section]),
    [
      [10, 'ts', 'render(x);\n', { kind: 'fragment', given: ['render', 'x'] }, 6],
      [14, 'shell', 'curl -s localhost:8080/fw/health\n', undefined, 6],
    ],
  );
});

test('a marker it cannot use is an error at its line: unknown, without a reason, or before no code fence', () => {
  assert.deepEqual(parseMarker('skip needs Redis'), { kind: 'skip', reason: 'needs Redis' });
  assert.deepEqual(parseMarker('compile-only needs a JWKS server'), { kind: 'compile-only', reason: 'needs a JWKS server' });
  const cases: [string, RegExp][] = [
    [`<!-- docs-test: skipp broken -->\n${fence}ts\nx\n${fence}`, /^doc\.md:1: unknown docs-test marker 'skipp'/],
    [`<!-- docs-test: skip -->\n${fence}ts\nx\n${fence}`, /^doc\.md:1: 'docs-test: skip' needs a reason/],
    [
      `text\n<!-- docs-test: fragment -->\nSome prose.\n${fence}ts\nx\n${fence}`,
      /^doc\.md:2: a docs-test marker must come right before a code fence$/,
    ],
    [`<!-- docs-test: skip old -->\n${fence}json\n{}\n${fence}`, /^doc\.md:1: a docs-test marker is followed by a ```json fence/],
    [`${fence}ts\nnever closed`, /^doc\.md:1: a code fence is never closed$/],
  ];
  for (const [md, message] of cases)
    assert.throws(
      () => extractBlocks('doc.md', md),
      (err: unknown) => err instanceof MarkerError && message.test(err.message),
    );
});

test('a deliberately broken doc fails with file, line and error for each broken example; markers keep theirs from failing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-docs-test-broken-'));
  const file = join(dir, 'broken.md');
  writeFileSync(
    file,
    [
      '# A broken doc', //                                                 1
      '',
      'A program that does not compile (a misspelled method):',
      '',
      `${fence}ts`, //                                                     5
      "import { Framework } from '@fw/runtime';",
      'const fw = new Framework();',
      "fw.handel('/chat/{room}', {});",
      'await fw.listen(8080);',
      fence, //                                                            10
      '',
      'A program that compiles and fails when it runs:',
      '',
      `${fence}js`,
      "import { Framework } from '@fw/runtime';", //                       15
      "process.env.FW_PORT = 'eighty'; await new Framework().listen();",
      fence,
      '',
      'A fragment that uses fw names without importing them compiles (they come from the context):',
      '', //                                                               20
      `${fence}ts`,
      'const registry = McpRegistry.of(fw);',
      "registry.registerTool({ name: 'x', handler: () => 'y' });",
      fence,
      '', //                                                               25
      'A fragment that gets a type wrong:',
      '',
      `${fence}ts`,
      'const n: number = fw.path;',
      fence, //                                                            30
      '',
      '## Against the demo',
      '',
      'A curl without its content type:',
      '', //                                                               35
      `${fence}sh`,
      `curl -s localhost:8080/fw/agent/assistant/agui -d '{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[]}'`,
      fence,
      '',
      '<!-- docs-test: skip shows what not to do -->', //                  40
      `${fence}ts`,
      'this is not TypeScript at all',
      fence,
      '',
      `${fence}bash`, //                                                   45
      'if then fi',
      fence,
      '',
    ].join('\n'),
  );
  try {
    const report = await checkDocs({ root, files: [file] });
    const shown = report.failures.map(formatFailure).join('\n\n');
    const at = (line: number) => report.failures.filter((f) => f.line === line);
    assert.equal(at(8)[0]?.stage, 'compile', shown);
    assert.match(at(8)[0]!.message, /^error TS2551: Property 'handel' does not exist on type 'Framework'\. Did you mean 'handle'\?/);
    assert.equal(at(8)[0]!.detail, "8:4 | fw.handel('/chat/{room}', {});");
    assert.equal(at(14)[0]?.stage, 'run', shown);
    assert.match(at(14)[0]!.message, /^the program ended with exit code 1$/);
    assert.match(
      at(14)[0]!.detail ?? '',
      /configuration key 'fw\.port' must be a number, got "eighty" \(from the environment variable FW_PORT\)/,
    );
    assert.deepEqual(at(22), [], 'the context fragment compiles');
    assert.match(at(29)[0]?.message ?? '', /^error TS2322: Type 'string' is not assignable to type 'number'\./, shown);
    assert.equal(at(36)[0]?.stage, 'shell run', shown);
    assert.match(at(36)[0]!.detail ?? '', /415/);
    assert.match(at(36)[0]!.detail ?? '', /Content-Type must be application\/json/);
    assert.deepEqual(report.skipped, [{ file, line: 41, reason: 'shows what not to do' }]);
    assert.equal(at(45)[0]?.stage, 'shell syntax', shown);
    assert.equal(report.failures.length, 5, shown);
    assert.ok(report.failures.every((f) => f.file === file));
    assert.match(formatFailure(at(8)[0]!), new RegExp(`^${file.replaceAll('/', '\\/')}:8 \\(compile\\): error TS2551`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
