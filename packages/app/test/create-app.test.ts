/**
 * Spec §1: the admin module "is configured automatically when present". createApp() installs
 * every fw module whose package is installed, each still switched off by its key, and leaves
 * fw.use() working for explicit apps.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Framework, MemoryLogger, type FrameworkModule } from '@fw/runtime';
import { Agent, OnPrompt, agents } from '@fw/agent';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { hidePackages } from '@fw/testing';
import type {} from '@fw/admin'; // its keys (fw.admin.enabled) are typed once it is imported
import { createApp, FW_MODULES } from '../dist/index.js';

const run = promisify(execFile);
/** packages/app: where @fw/app and its peers resolve from, as they would in an app. */
const appDir = fileURLToPath(new URL('..', import.meta.url));

@Agent({ name: 'echo', headless: true })
class Echo {
  @OnPrompt()
  prompt(message: string) {
    return `echo: ${message}`;
  }
}

const base = { configFile: false as const, env: {}, 'fw.data-dir': '', 'fw.close.signals': '' };

async function status(url: string, init?: RequestInit): Promise<number> {
  const res = await fetch(url, init);
  await res.body?.cancel();
  return res.status;
}

test('createApp() installs every installed module in order; the dashboard, MCP and agents are served and announced', async () => {
  const logger = new MemoryLogger();
  const fw = await createApp({ ...base, logger, modules: [agents({ agents: [Echo] })] });
  try {
    assert.deepEqual(
      FW_MODULES.map((m) => m.name),
      ['@fw/mcp', '@fw/agent', '@fw/admin', '@fw/redis'],
    );
    for (const name of ['@fw/mcp', '@fw/agent', '@fw/admin', '@fw/redis']) assert.ok(fw.hasModule(name), name);
    const { port } = await fw.listen(0, '127.0.0.1');
    const origin = `http://127.0.0.1:${port}`;
    assert.equal(await status(`${origin}/fw/admin/`), 200);
    assert.equal(await status(`${origin}/api/admin/overview`), 200);
    assert.equal(await status(`${origin}/fw/agent/echo/a2a/.well-known/agent-card.json`), 200);
    const client = new Client({ name: 'app-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/fw/admin/mcp`)));
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'fw_list_agents'));
    await client.close();
    // Cluster mode installed but single-node: no fw.cluster.redis-url.
    assert.equal(fw.services.get('cluster'), undefined);

    const modules = logger.entries.find((e) => e.fields.module === 'app');
    assert.equal(modules?.message, 'modules: @fw/mcp, @fw/agent, @fw/admin, @fw/redis');
    const listening = logger.entries.find((e) => /^fw listening on /.test(e.message ?? ''));
    assert.deepEqual(Object.keys(listening?.fields.endpoints as object).sort(), [
      'MCP fw',
      'MCP fw-admin',
      'admin API',
      'agent echo',
      'dashboard',
    ]);
  } finally {
    await fw.close();
  }
});

test('each module is still switched off by its key (option or environment); fw.use() adds more', async () => {
  const fw = await createApp({ ...base, env: { FW_AGENT_ENABLED: 'false' }, 'fw.admin.enabled': false });
  const own: FrameworkModule = { name: 'my-module', install: (f) => void f.route('GET', '/mine', (_q, r) => r.end('mine')) };
  await fw.use(own);
  try {
    const { port } = await fw.listen(0, '127.0.0.1');
    const origin = `http://127.0.0.1:${port}`;
    assert.equal(await status(`${origin}/fw/admin/`), 404);
    assert.equal(await status(`${origin}/api/admin/overview`), 404);
    assert.equal(fw.services.get('agent'), undefined);
    assert.equal(await (await fetch(`${origin}/mine`)).text(), 'mine');
  } finally {
    await fw.close();
  }
});

test('explicit apps are unchanged: new Framework() and fw.use() install exactly what the code says', async () => {
  const fw = new Framework(base);
  try {
    assert.equal(fw.hasModule('@fw/admin'), false);
    const { port } = await fw.listen(0, '127.0.0.1');
    assert.equal(await status(`http://127.0.0.1:${port}/fw/admin/`), 404);
  } finally {
    await fw.close();
  }
});

/** Runs createApp() in a child process where `hidden` packages are not installed. */
async function inAppWithout(hidden: string[], script: string): Promise<{ stdout: string; stderr: string; code: number }> {
  const absent = hidePackages(hidden);
  try {
    const { stdout, stderr } = await run(process.execPath, [...absent.args, '--input-type=module', '-e', script], {
      cwd: appDir,
      env: { PATH: process.env.PATH ?? '', FW_DATA_DIR: '', FW_LOG_LEVEL: 'info' },
      timeout: 60_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  } finally {
    absent.remove();
  }
}

test('a module whose package is not installed is skipped and said so; the others are configured', async () => {
  const { stdout, stderr, code } = await inAppWithout(
    ['@fw/agent'],
    `import { createApp } from '@fw/app';
     const fw = await createApp({ configFile: false, 'fw.close.signals': '' });
     const { port } = await fw.listen(0, '127.0.0.1');
     const admin = await fetch('http://127.0.0.1:' + port + '/fw/admin/');
     console.log(JSON.stringify({ admin: admin.status, agent: fw.hasModule('@fw/agent'), mcp: fw.hasModule('@fw/mcp') }));
     await fw.close();`,
  );
  assert.equal(code, 0, stderr);
  const lines = stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(
    lines.find((l) => 'admin' in l),
    { admin: 200, agent: false, mcp: true },
  );
  const said = lines.find((l) => l.module === 'app');
  assert.equal(said?.msg, 'modules: @fw/mcp, @fw/admin, @fw/redis (not installed: @fw/agent)');
});

test('an installed module that is broken (one of its own dependencies missing) fails the start instead of passing for absent', async () => {
  const { code, stderr } = await inAppWithout(
    ['@a2a-js/sdk'],
    `import { createApp } from '@fw/app';
     await createApp({ configFile: false, 'fw.close.signals': '' });`,
  );
  assert.notEqual(code, 0);
  assert.match(stderr, /Cannot find package '@a2a-js\/sdk'/);
});
