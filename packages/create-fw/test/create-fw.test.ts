/**
 * The scaffolder's own behaviour: its command line, its questions, what it writes for each
 * combination of parts (compiled against this repository's fw packages), its tarball reading and
 * its refusals. The end-to-end run (pack, scaffold outside the repo, npm install, npm start,
 * npm test) is scripts/scaffold-check.mjs, in CI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { closure, COMPILER_OPTIONS, generate, main, PARTS, readTarballs, USAGE, type Part } from '../dist/index.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const here = fileURLToPath(new URL('.', import.meta.url)); // packages/create-fw/dist-test/

/** Runs main() with captured output; `answers` are typed into an interactive terminal when given. */
async function scaffold(argv: string[], cwd: string, answers?: string): Promise<{ code: number; out: string; err: string }> {
  const stdin = Object.assign(new PassThrough(), { isTTY: answers !== undefined });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  if (answers !== undefined) stdin.end(answers);
  const code = await main(argv, { cwd, stdin, stdout, stderr });
  return { code, out, err };
}

function scratch(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'create-fw-test-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

test('--help prints the usage; an unknown option or a second directory is refused in one line (exit 2)', async () => {
  const s = scratch();
  try {
    assert.deepEqual(await scaffold(['--help'], s.dir), { code: 0, out: `${USAGE}\n`, err: '' });
    assert.deepEqual(await scaffold(['app', '--mpc'], s.dir), {
      code: 2,
      out: '',
      err: "create-fw: unknown option '--mpc'\nTry --help for the options.\n",
    });
    assert.equal(
      (await scaffold(['a', 'b'], s.dir)).err,
      "create-fw: unexpected argument 'b' (one directory only)\nTry --help for the options.\n",
    );
    assert.equal((await scaffold(['a', '--from'], s.dir)).err, "create-fw: option '--from' needs a value\nTry --help for the options.\n");
    assert.equal(existsSync(join(s.dir, 'app')), false, 'nothing written');
  } finally {
    s.remove();
  }
});

test('flags choose the parts; without any, a terminal is asked each part (Enter takes the default) and the next two commands are printed', async () => {
  const s = scratch();
  try {
    const flagged = await scaffold(['flagged', '--yes', '--agents', '--no-admin'], s.dir);
    assert.equal(flagged.code, 0, flagged.err);
    assert.equal(
      flagged.out,
      'Created flagged: a TypeScript fw app with realtime, mcp, agents.\n\nNext:\n  cd flagged\n  npm install && npm start\n',
    );
    const app = readFileSync(join(s.dir, 'flagged/src/app.ts'), 'utf8');
    assert.match(app, /from '@fw\/agent'/);
    assert.doesNotMatch(app, /@fw\/admin/);

    // realtime: Enter (yes), mcp: "n", agents: "maybe" then "y", admin: Enter (yes), cluster: Enter (no).
    const asked = await scaffold(['asked'], s.dir, '\nn\nmaybe\ny\n\n\n');
    assert.equal(asked.code, 0, asked.err);
    assert.match(asked.out, /Real-time handlers.*\(Y\/n\) An MCP server.*\(Y\/n\) Agents.*\(y\/N\) Please answer y or n\.\n/s);
    assert.match(asked.out, /Created asked: a TypeScript fw app with realtime, agents, admin\./);
    const pkg = JSON.parse(readFileSync(join(s.dir, 'asked/package.json'), 'utf8')) as {
      type: string;
      dependencies: Record<string, string>;
    };
    assert.equal(pkg.type, 'module');
    assert.deepEqual(Object.keys(pkg.dependencies).sort(), ['@fw/admin', '@fw/agent', '@fw/runtime']);
    assert.equal(pkg.dependencies['@fw/runtime'], '^0.1.0');

    // Not a terminal, no flags: the defaults, no questions.
    const piped = await scaffold(['.'], join(s.dir, 'asked'));
    assert.equal(piped.code, 1, 'the directory is not empty');
    mkdirSync(join(s.dir, 'piped'));
    const defaults = await scaffold(['.'], join(s.dir, 'piped'));
    assert.equal(defaults.code, 0, defaults.err);
    assert.equal(defaults.out, 'Created .: a TypeScript fw app with realtime, mcp, admin.\n\nNext:\n  npm install && npm start\n');
  } finally {
    s.remove();
  }
});

test('it never overwrites: a non-empty directory and an invalid package name are refused (exit 1), nothing written', async () => {
  const s = scratch();
  try {
    mkdirSync(join(s.dir, 'taken'));
    writeFileSync(join(s.dir, 'taken', 'notes.txt'), 'mine');
    const taken = await scaffold(['taken', '--yes'], s.dir);
    assert.equal(taken.code, 1);
    assert.equal(taken.err, `create-fw: ${join(s.dir, 'taken')} is not empty (notes.txt): choose a new directory\n`);
    assert.equal(readFileSync(join(s.dir, 'taken', 'notes.txt'), 'utf8'), 'mine');
    const badName = await scaffold(['My App', '--yes'], s.dir);
    assert.equal(badName.code, 1);
    assert.match(badName.err, /^create-fw: 'My App' is not a valid package name: it may contain only lower-case letters.*; pass --name\n$/);
    assert.equal(existsSync(join(s.dir, 'My App')), false);
  } finally {
    s.remove();
  }
});

test('--from reads the packages out of real tarballs, lists every @fw package the app needs, and names any that is missing', async () => {
  const s = scratch();
  try {
    const packDir = join(s.dir, 'packed');
    mkdirSync(packDir);
    await run(
      'npm',
      ['pack', '--pack-destination', packDir, '-w', 'packages/protocol', '-w', 'packages/client', '-w', 'packages/runtime'],
      {
        cwd: repo,
        timeout: 120_000,
      },
    );
    const tarballs = readTarballs(packDir);
    assert.deepEqual([...tarballs.keys()].sort(), ['@fw/client', '@fw/protocol', '@fw/runtime']);
    const runtime = tarballs.get('@fw/runtime')!;
    const declared = JSON.parse(readFileSync(join(repo, 'packages/runtime/package.json'), 'utf8')) as { version: string };
    assert.equal(runtime.version, declared.version);
    assert.ok(runtime.needs.includes('@fw/client') && runtime.needs.includes('@fw/protocol') && runtime.needs.includes('ws'));
    assert.deepEqual(
      closure(['@fw/runtime'], tarballs).found.map((t) => t.name),
      ['@fw/runtime', '@fw/client', '@fw/protocol'],
    );

    const ok = await scaffold(['rt', '--no-mcp', '--no-admin', '--from', packDir], s.dir);
    assert.equal(ok.code, 0, ok.err);
    const pkg = JSON.parse(readFileSync(join(s.dir, 'rt/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    // Everything the runtime needs from the tarballs is a dependency of its own: nothing is looked up on the registry.
    assert.deepEqual(pkg.dependencies, {
      '@fw/client': `file:${join(packDir, 'fw-client-0.1.0.tgz')}`,
      '@fw/protocol': `file:${join(packDir, 'fw-protocol-0.1.0.tgz')}`,
      '@fw/runtime': `file:${join(packDir, 'fw-runtime-0.1.0.tgz')}`,
    });

    const missing = await scaffold(['full', '--all', '--from', packDir], s.dir);
    assert.equal(missing.code, 1);
    assert.match(
      missing.err,
      /^create-fw: --from .*packed: no tarball for @fw\/mcp, @fw\/agent, @fw\/admin, @fw\/redis \(run `npm run pack` in your fw clone/,
    );
    assert.equal(existsSync(join(s.dir, 'full')), false);
    assert.match((await scaffold(['x', '--from', join(s.dir, 'nowhere')], s.dir)).err, /no such directory/);
  } finally {
    s.remove();
  }
});

test('the tsconfig is the one the docs state (getting-started.md, mcp.md), and every combination of parts compiles against fw', async () => {
  const stated = [
    /<!-- pack-check: tsconfig -->\s*```json\n([\s\S]*?)```/.exec(readFileSync(join(repo, 'docs/mcp.md'), 'utf8'))?.[1],
    /## The tsconfig[\s\S]*?```json\n([\s\S]*?)```/.exec(readFileSync(join(repo, 'docs/getting-started.md'), 'utf8'))?.[1],
  ];
  for (const json of stated) {
    assert.ok(json, 'the docs state the tsconfig');
    assert.deepEqual((JSON.parse(json) as { compilerOptions: unknown }).compilerOptions, COMPILER_OPTIONS);
  }

  // All 32 apps in one compilation, inside this repository so that @fw/* resolve to the workspace.
  const dir = join(here, 'combinations');
  rmSync(dir, { recursive: true, force: true });
  const roots: string[] = [];
  for (let mask = 0; mask < 2 ** PARTS.length; mask++) {
    const parts = new Set<Part>(PARTS.filter((_, i) => mask & (1 << i)));
    const name = `app-${mask}`;
    for (const [path, text] of generate({ name, parts, source: { kind: 'registry', range: '^0.1.0' } })) {
      mkdirSync(join(dir, name, path, '..'), { recursive: true });
      writeFileSync(join(dir, name, path), text);
      if (path.endsWith('.ts')) roots.push(`${name}/${path}`);
    }
  }
  const { compilerOptions } = JSON.parse(readFileSync(join(dir, 'app-0/tsconfig.json'), 'utf8')) as { compilerOptions: object };
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { ...compilerOptions, noEmit: true, rootDir: '.' }, files: roots }),
  );
  try {
    await run(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { timeout: 170_000 });
  } catch (err) {
    assert.fail(`the generated apps do not compile:\n${(err as { stdout?: string }).stdout ?? String(err)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
