#!/usr/bin/env node
// The pack-and-install check: do the published packages work outside this monorepo?
//
//  1. `npm pack` each publishable package (after `tsc -b`; `npm run pack-check` builds first);
//     each tarball must hold its package.json, README.md, LICENSE and built sources, no tests,
//     and every source map it ships must point to sources it ships (or carry them).
//  2. A scratch app in a temporary directory outside the repository installs the tarballs alone
//     (plus their declared registry dependencies and @types/node); no workspace links.
//     The MCP SDK client is installed in a folder of its own (mcp-client/), so its dependencies
//     cannot hide one an fw package forgot to declare.
//  3. The README's 20-line app is copied from README.md, and the smoke test
//     (scripts/pack-check/smoke.ts) is compiled there (with the repository's tsc) against the
//     tarballs' declarations and run:
//     the README app, @fw/client/node, the admin REST API and dashboard, an MCP client listing and
//     calling a tool, the stdio bridge bin, an @Agent over A2A, a missing optional peer, and
//     @fw/redis on the local Redis (FW_PACK_CHECK_REDIS_URL, default redis://127.0.0.1:6379).
//  4. Each package README's quick start is copied out and run the same way (port 0 instead of
//     8080): every server must print its address and serve there; the client's quick start talks
//     to the runtime's; the store's runs to completion.
//
// Usage: npm run pack-check, or after `npm run build`: node scripts/pack-check.mjs [--keep]   (--keep leaves the scratch directory for a look)
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { PUBLISHED } from './check-imports.mjs';
import { assertIsolated, installedVersion, packPackages, readJson, root, run as runCommand } from './lib/packing.mjs';

const here = join(root, 'scripts', 'pack-check');
const keep = process.argv.includes('--keep');
const started = Date.now();
const timings = [];

/** `run` of ./lib/packing.mjs, timed into this check's summary. */
const run = (command, args, options = {}) => runCommand(command, args, { timings, ...options });

const redisUrl = new URL(process.env.FW_PACK_CHECK_REDIS_URL ?? 'redis://127.0.0.1:6379');
/** Every Redis key and channel of this run starts with it; they are deleted at the end. */
const redisPrefix = `fw-pack-check-${randomBytes(8).toString('hex')}`;

/** Deletes this run's Redis keys (one EVAL over a plain RESP connection; no client library here). */
function deleteRedisKeys() {
  const script = "for _, k in ipairs(redis.call('KEYS', ARGV[1])) do redis.call('DEL', k) end return 1";
  const args = ['EVAL', script, '0', `${redisPrefix}*`];
  const frame = `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
  return new Promise((resolve) => {
    const socket = connectTcp(Number(redisUrl.port || 6379), redisUrl.hostname, () => socket.end(frame));
    socket.setTimeout(5000, () => socket.destroy());
    socket.on('data', () => socket.destroy());
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
  });
}

/** The first ```ts block under the README's "A 20-line app" heading, listening on port 0. */
function readmeApp() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('A 20-line app'));
  const code = section && /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error("README.md: no ```ts block under '## A 20-line app'");
  if (!code.includes('server.listen(8080)'))
    throw new Error('README.md: the 20-line app no longer ends with server.listen(8080); update scripts/pack-check.mjs');
  return `${code.replace('server.listen(8080)', "server.listen(0, '127.0.0.1')")}\nexport { fw, server };\n`;
}

/**
 * The documentation's examples the check compiles and runs: the ```ts block right after
 * `<!-- pack-check: NAME -->` in docs/FILE. Each ends with `await fw.listen(8080);`, which becomes
 * port 0 and a line printing the address; `request` then makes one real request to it.
 */
/** One stateless 2026-07-28 `tools/call` (the `_meta` envelope and its headers): the status and the body's text. */
async function modernToolCall(origin, name, args) {
  const res = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'pack-check', version: '1' },
        },
      },
    }),
  });
  return { status: res.status, text: await res.text() };
}

const DOC_EXAMPLES = [
  {
    file: 'mcp.md',
    name: 'mcp-quick-start',
    // One tools/call of the example's own tool.
    request: async (origin) => {
      const { status, text } = await modernToolCall(origin, 'post_message', { room: 'lobby', text: 'hi' });
      if (status !== 200 || !text.includes('lobby')) throw new Error(`tools/call post_message answered ${status}: ${text}`);
    },
  },
  {
    file: 'mcp.md',
    name: 'mcp-function-first',
    // fw.mcp.tool with zod: a valid call answers the sum, an invalid one is an isError result.
    request: async (origin) => {
      const ok = await modernToolCall(origin, 'add', { a: 2, b: 3 });
      if (ok.status !== 200 || !ok.text.includes('"sum":5')) throw new Error(`tools/call add answered ${ok.status}: ${ok.text}`);
      const bad = await modernToolCall(origin, 'add', { a: 2, b: 'three' });
      if (!bad.text.includes('"isError":true')) throw new Error(`tools/call add with a string b answered ${bad.status}: ${bad.text}`);
    },
  },
  {
    file: 'agents.md',
    name: 'agents-example',
    // One A2A 1.0 SendMessage to the coordinator, answered by the offline runtime.
    request: async (origin) => {
      const res = await fetch(`${origin}/fw/agent/planner/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: '1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
        }),
      });
      const body = await res.json();
      if (res.status !== 200 || body.error || !body.result)
        throw new Error(`A2A SendMessage answered ${res.status}: ${JSON.stringify(body)}`);
    },
  },
];

function docExample({ file, name }) {
  const text = readFileSync(join(root, 'docs', file), 'utf8');
  const code = new RegExp(`<!-- pack-check: ${name} -->\\s*\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(text)?.[1];
  if (!code) throw new Error(`docs/${file}: no \`\`\`ts block after <!-- pack-check: ${name} -->`);
  if (!code.includes('await fw.listen(8080);'))
    throw new Error(`docs/${file} (${name}): the example no longer ends with await fw.listen(8080); update scripts/pack-check.mjs`);
  return code.replace(
    'await fw.listen(8080);',
    "const { port } = await fw.listen(0, '127.0.0.1');\nconsole.log(`http://127.0.0.1:${port}`);",
  );
}

/** The ```json block after `<!-- pack-check: tsconfig -->` in docs/mcp.md: the settings the docs tell users to use. */
function docsTsconfig() {
  const text = readFileSync(join(root, 'docs', 'mcp.md'), 'utf8');
  const json = /<!-- pack-check: tsconfig -->\s*```json\n([\s\S]*?)```/.exec(text)?.[1];
  if (!json) throw new Error('docs/mcp.md: no ```json block after <!-- pack-check: tsconfig -->');
  return JSON.parse(json);
}

async function runDocExamples(app, env) {
  const t0 = Date.now();
  const children = [];
  try {
    for (const example of DOC_EXAMPLES) {
      const m = await startUntil(join(app, `doc-${example.name}.js`), /http:\/\/127\.0\.0\.1:(\d+)/, env, children);
      await example.request(`http://127.0.0.1:${m[1]}`).catch((err) => {
        throw new Error(`docs/${example.file} (${example.name}): ${err.message}`);
      });
    }
  } finally {
    for (const child of children) child.kill();
  }
  timings.push(`docs examples ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** The first ```js or ```ts block under a package README's "Quick start" heading. */
function quickStart(pkg) {
  const readme = readFileSync(join(root, 'packages', pkg, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('Quick start'));
  const m = section && /```(js|ts)\n([\s\S]*?)```/.exec(section);
  if (!m) throw new Error(`packages/${pkg}/README.md: no \`\`\`js or \`\`\`ts block under '## Quick start'`);
  return { lang: m[1], code: m[2].replaceAll('listen(8080)', 'listen(0)') };
}

/** Starts `node file`, resolves with the first stdout match of `pattern` (the child keeps running). */
function startUntil(file, pattern, env, children) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: dirname(file), env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    const limit = setTimeout(() => reject(new Error(`${file}: no line matching ${pattern} within 30 s\n${out}`)), 30_000);
    const onData = (d) => {
      out += d;
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(limit);
        resolve(m);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      clearTimeout(limit);
      reject(new Error(`${file} exited (${code}) before printing ${pattern}\n${out}`));
    });
  });
}

async function runQuickStarts(app, env) {
  const t0 = Date.now();
  const children = [];
  const address = /http:\/\/127\.0\.0\.1:(\d+)/;
  const file = (pkg) => join(app, `quickstart-${pkg}.${quickStart(pkg).lang === 'ts' ? 'js' : 'mjs'}`);
  try {
    const servers = ['runtime', 'admin', 'mcp', 'agent', 'redis', 'app'];
    const envOf = (pkg) =>
      pkg === 'redis' ? { ...env, FW_CLUSTER_REDIS_URL: env.PACK_CHECK_REDIS_URL, FW_CLUSTER_PREFIX: `${redisPrefix}-quickstart` } : env;
    const origins = Object.fromEntries(
      await Promise.all(
        servers.map(async (pkg) => {
          const m = await startUntil(file(pkg), address, envOf(pkg), children);
          return [pkg, `http://127.0.0.1:${m[1]}`];
        }),
      ),
    );
    for (const [pkg, origin] of Object.entries(origins)) {
      const res = await fetch(`${origin}/fw/client.js`);
      await res.body?.cancel();
      if (res.status !== 200) throw new Error(`packages/${pkg}/README.md quick start: ${origin}/fw/client.js gave ${res.status}`);
    }
    const overview = await fetch(`${origins.admin}/api/admin/overview`, { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } });
    await overview.body?.cancel();
    if (overview.status !== 200) throw new Error(`packages/admin/README.md quick start: the overview gave ${overview.status}`);
    writeFileSync(file('client'), quickStart('client').code.replaceAll('http://127.0.0.1:8080', origins.runtime));
    await startUntil(file('client'), /got .*welcome to lobby/, env, children);
    await run(process.execPath, [file('store')], { cwd: app, env, label: 'store quick start', timeoutMs: 30_000 });
  } finally {
    for (const child of children) child.kill();
  }
  timings.push(`README quick starts ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** What `npm pack --json` says one tarball holds (paths relative to the package). */
function checkTarball(file, entries, declared) {
  for (const needed of ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts']) {
    if (!entries.includes(needed)) throw new Error(`${file} lacks ${needed}`);
  }
  // Every `files` entry must have produced something (a build step that did not run, e.g. the
  // client's browser bundle, would otherwise ship a package that fails at run time).
  for (const entry of declared.filter((e) => !e.startsWith('!'))) {
    if (!entries.some((e) => e === entry || e.startsWith(`${entry.replace(/\/$/, '')}/`))) {
      throw new Error(`${file} lacks '${entry}' (in its package.json files): run \`npm run build\` first`);
    }
  }
  const tests = entries.filter((e) => /(^|\/)test\/|\.test\.js$|\.tsbuildinfo$/.test(e));
  if (tests.length > 0) throw new Error(`${file} ships tests: ${tests.slice(0, 3).join(', ')}`);
}

/**
 * Every source map a tarball ships must lead somewhere: each of its `sources` is in the tarball
 * too (tsc's maps point to ../src/*.ts, so the packages ship src/), or the map carries the text
 * itself (`sourcesContent`, as the client's browser bundles do). A map into nothing makes stack
 * traces and "go to definition" worse than no map at all.
 */
function checkSourceMaps(file, entries, packageDir) {
  const shipped = new Set(entries);
  for (const map of entries.filter((e) => e.endsWith('.map'))) {
    const { sources = [], sourcesContent = [] } = readJson(join(packageDir, map));
    sources.forEach((source, i) => {
      if (typeof sourcesContent[i] === 'string') return;
      const target = posix.normalize(posix.join(posix.dirname(map), source));
      if (!shipped.has(target)) throw new Error(`${file}: ${map} points to ${source}, which is not in the package`);
    });
  }
}

async function main() {
  for (const name of PUBLISHED) {
    if (!existsSync(join(root, 'packages', name, 'dist', 'index.js')))
      throw new Error(`packages/${name} is not built: run \`npx tsc -b\` (or \`npm run pack-check\`)`);
  }
  const work = mkdtempSync(join(tmpdir(), 'fw-pack-check-'));
  try {
    assertIsolated(work);
    timings.push(`setup ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const tarballs = join(work, 'tarballs');
    const app = join(work, 'app');
    const mcpClient = join(app, 'mcp-client');
    mkdirSync(tarballs);
    mkdirSync(mcpClient, { recursive: true });

    // 1. Pack.
    const packed = await packPackages(PUBLISHED, tarballs, { timings });
    const files = Object.fromEntries(packed.map((p) => [p.name, p.filename]));
    for (const p of packed) {
      const dir = PUBLISHED.find((d) => readJson(join(root, 'packages', d, 'package.json')).name === p.name);
      checkTarball(
        p.filename,
        p.files.map((f) => f.path),
        readJson(join(root, 'packages', dir, 'package.json')).files ?? [],
      );
      checkSourceMaps(
        p.filename,
        p.files.map((f) => f.path),
        join(root, 'packages', dir),
      );
    }

    // 2. The scratch app and its installs (the MCP client's beside it, at the same time).
    writeFileSync(
      join(app, 'package.json'),
      `${JSON.stringify(
        {
          name: 'fw-pack-check-app',
          private: true,
          type: 'module',
          // zod: the docs' function-first examples use it, as an app would (a dependency of its own).
          dependencies: {
            ...Object.fromEntries(Object.entries(files).map(([name, file]) => [name, `file:../tarballs/${file}`])),
            zod: installedVersion('zod'),
          },
          devDependencies: { '@types/node': installedVersion('@types/node') },
        },
        null,
        2,
      )}\n`,
    );
    writeFileSync(
      join(mcpClient, 'package.json'),
      `${JSON.stringify(
        {
          name: 'fw-pack-check-mcp-client',
          private: true,
          type: 'module',
          devDependencies: { '@modelcontextprotocol/sdk': installedVersion('@modelcontextprotocol/sdk') },
        },
        null,
        2,
      )}\n`,
    );
    const npmInstall = ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
    await Promise.all([
      run('npm', npmInstall, { cwd: app, label: 'npm install (app)' }),
      run('npm', npmInstall, { cwd: mcpClient, label: 'npm install (mcp client)' }),
    ]);
    for (const name of Object.keys(files)) {
      const installed = join(app, 'node_modules', name);
      // A workspace link would be a symlink into the repository; a tarball install is a directory.
      if (!existsSync(join(installed, 'package.json')) || lstatSync(installed).isSymbolicLink())
        throw new Error(`${name} is not installed from its tarball`);
    }

    // 3. The README app and the smoke test, compiled against the tarballs' types, then run.
    writeFileSync(join(app, 'readme-app.ts'), readmeApp());
    copyFileSync(join(here, 'smoke.ts'), join(app, 'smoke.ts'));
    const tsconfig = readJson(join(here, 'tsconfig.json'));
    for (const pkg of PUBLISHED) {
      const { lang, code } = quickStart(pkg);
      writeFileSync(join(app, `quickstart-${pkg}.${lang === 'ts' ? 'ts' : 'mjs'}`), code);
      if (lang === 'ts') tsconfig.files.push(`quickstart-${pkg}.ts`);
    }
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    // The docs' examples compile with the tsconfig the docs state, nothing more.
    for (const example of DOC_EXAMPLES) writeFileSync(join(app, `doc-${example.name}.ts`), docExample(example));
    writeFileSync(
      join(app, 'tsconfig.docs.json'),
      JSON.stringify({ ...docsTsconfig(), files: DOC_EXAMPLES.map((e) => `doc-${e.name}.ts`) }, null, 2),
    );
    copyFileSync(join(here, 'mcp-check.mjs'), join(mcpClient, 'check.mjs'));
    copyFileSync(join(here, 'mcp-check.d.mts'), join(mcpClient, 'check.d.mts'));
    // The repository's compiler (a tool, not a dependency): the app's own node_modules provide every type.
    await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], { cwd: app, label: 'tsc' });
    await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(app, 'tsconfig.docs.json')], {
      cwd: app,
      label: 'tsc (docs examples)',
    });
    const env = {
      ...process.env,
      ADMIN_TOKEN: randomBytes(16).toString('hex'),
      PACK_CHECK_REDIS_URL: redisUrl.href,
      PACK_CHECK_REDIS_PREFIX: `${redisPrefix}-smoke`,
      FW_DATA_DIR: '',
      NODE_ENV: 'production',
    };
    const out = await run(process.execPath, ['smoke.js'], { cwd: app, label: 'smoke', timeoutMs: 120_000, env });
    process.stdout.write(out);
    await runQuickStarts(app, env);
    console.log('pack-check: every package README quick start runs');
    await runDocExamples(app, env);
    console.log(
      `pack-check: the docs examples compile with the stated tsconfig and run (${DOC_EXAMPLES.map((e) => `docs/${e.file}`).join(', ')})`,
    );
  } finally {
    const t0 = Date.now();
    await deleteRedisKeys();
    if (keep) console.log(`pack-check: scratch directory kept at ${work}`);
    // Thousands of small files: deleted by a detached `rm` so the check does not wait on the disk.
    else if (process.platform !== 'win32') spawn('rm', ['-rf', work], { detached: true, stdio: 'ignore' }).unref();
    else rmSync(work, { recursive: true, force: true });
    timings.push(`cleanup ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
}

main().then(
  () => {
    console.log(`pack-check: ok on Node ${process.version} in ${((Date.now() - started) / 1000).toFixed(1)} s (${timings.join(', ')})`);
  },
  (err) => {
    console.error(`pack-check: FAILED on Node ${process.version}:`, err.message ?? err);
    process.exit(1);
  },
);
