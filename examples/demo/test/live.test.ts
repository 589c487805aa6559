// The demo is alive from the first second (issue #17, Build 1 and 4, Acceptance 1's chat-page
// part): with nobody doing anything, simulated participants (real fw clients over loopback) talk in
// the rooms, the ticker broadcasts, and one coordinator run fills the journal; the switch stops and
// restarts all of it and is an admin write (gate + operator role); `npm start` prints where
// everything is, and its stdio-bridge line really connects a stdio MCP client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';
import { envName, MemoryLogger } from '@fw/runtime';
import { MIN_MESSAGE_INTERVAL_MS, MIN_TICKER_INTERVAL_MS, startDemo, type Demo } from '../src/main.js';
import { DEMO_CONFIG } from '../src/config.js';
import { firstRunText } from '../src/first-run.js';
import { waitFor } from '@fw/testing';

const CHROMIUM = process.env.FW_CHROMIUM ?? '/usr/bin/chromium';
const skipBrowser = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM}`;
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));
const BRIDGE_BIN = fileURLToPath(new URL('../../../../packages/mcp/bin/fw-mcp-stdio-bridge.js', import.meta.url));

async function json<T>(url: string, init?: RequestInit): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(url, init);
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

interface Status {
  running: boolean;
  participants: { name: string; state: string; sent: number }[];
  ticker: { broadcasts: number };
  coordinatorRun?: { state: string; detail?: string };
  agentChats?: { state: string; answered: number; detail?: string };
}

test('10 s after start, with no action, the chat page shows simulated messages arriving; the counters are real', {
  skip: skipBrowser,
}, async () => {
  const started = Date.now();
  const demo = await startDemo({ port: 0, host: '127.0.0.1', simulation: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(20_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(demo.url);
    // Acceptance 1 names the moment: 10 s after start, nothing done on the page but opening it.
    await page.waitForTimeout(Math.max(0, started + 10_000 - Date.now()));
    // The page shows the room's recent messages when it joins, then the live ones; on a loaded
    // machine the page itself may still be loading at the 10 s mark, hence a short grace.
    await page
      .waitForFunction(() => document.querySelectorAll('#messages li.simulated').length > 0, undefined, { timeout: 5000 })
      .catch(async () => assert.fail(`no simulated message on the page 10 s after start (${await page.textContent('#messages')})`));
    const at10s = await page.locator('#messages li.simulated').count();
    // "Arriving": more come while we watch.
    await page.waitForFunction((n) => document.querySelectorAll('#messages li.simulated').length > n, at10s);
    const first = page.locator('#messages li.simulated').first();
    assert.match((await first.locator('.who').textContent()) ?? '', /^sim-/);
    assert.equal(await first.locator('.sim').textContent(), 'simulated');
    // The ticker is a real broadcaster the page subscribes to.
    await page.waitForFunction(() => (document.getElementById('ticker')?.children.length ?? 0) >= 3);
    assert.equal(await page.isChecked('#simulation-switch'), true);

    // Honest counters: the admin plane counts the simulated clients and the broadcasts they caused.
    const overview = (await json<{ connections: number; broadcasts: number; messagesIn: number }>(`${demo.url}api/admin/overview`)).body;
    assert.ok(overview.connections >= 6, `connections ${overview.connections}`);
    assert.ok(overview.broadcasts > 0 && overview.messagesIn > 0, JSON.stringify(overview));
    const resources = (await json<{ path: string; transport: string }[]>(`${demo.url}api/admin/resources?limit=100`)).body;
    const chat = resources.filter((r) => r.path.startsWith('/fw/chat/'));
    assert.deepEqual([...new Set(chat.map((r) => r.transport))].sort(), ['long-polling', 'sse', 'streaming', 'websocket']);
    const ticker = (await json<{ id: string }[]>(`${demo.url}api/admin/broadcasters?limit=100`)).body.find(
      (b) => b.id === '/fw/demo/ticker',
    );
    assert.ok(ticker, 'the ticker broadcaster is listed');
    // One coordinator run at start: a completed A2A task of `lead` and its journal events.
    const status = await waitFor(
      'the coordinator run',
      async () => {
        const s = (await json<Status>(`${demo.url}demo/simulation`)).body;
        return s.coordinatorRun?.state === 'pending' ? undefined : s;
      },
      20_000,
    );
    assert.deepEqual(status.coordinatorRun, { state: 'completed' });
    const journal = await json<unknown[]>(`${demo.url}api/admin/journal?limit=50`);
    const kinds = new Set(
      (journal.body as { kind: string; coordinator: string }[]).filter((e) => e.coordinator === 'lead').map((e) => e.kind),
    );
    for (const kind of ['dispatch', 'completion', 'handoff', 'evaluation']) assert.ok(kinds.has(kind), `journal has a ${kind} of lead`);

    // The Runs tab is full on first start: the coordination (lead and its two dispatches) and the
    // scripted chat with the assistant (three chat runs, two of them with a tool call) are on the tape.
    const chats = await waitFor(
      'the chat with the assistant',
      async () => {
        const s = (await json<Status>(`${demo.url}demo/simulation`)).body;
        return s.agentChats === undefined || s.agentChats.state === 'pending' ? undefined : s.agentChats;
      },
      30_000,
    );
    assert.deepEqual(chats, { state: 'completed', answered: 3 });
    type Run = { id: string; agent: string; protocol: string | null; status: string; parentRunId: string | null; steps: number };
    const runs = (await json<Run[]>(`${demo.url}api/admin/tape/runs?limit=100`)).body;
    const lead = runs.find((r) => r.agent === 'lead' && r.protocol === 'a2a');
    assert.ok(lead, 'the coordinator run is on the tape');
    assert.deepEqual(
      runs
        .filter((r) => r.parentRunId === lead.id)
        .map((r) => `${r.agent} ${r.protocol}`)
        .sort(),
      ['assistant dispatch', 'research dispatch'],
    );
    const chatRuns = runs.filter((r) => r.agent === 'assistant' && r.protocol === 'chat');
    assert.equal(chatRuns.length, 3);
    assert.ok(chatRuns.every((r) => r.status === 'completed'));
    const toolNames: string[] = [];
    for (const run of chatRuns) {
      const steps = (await json<{ kind: string; body: { toolName?: string } }[]>(`${demo.url}api/admin/tape/runs/${run.id}/steps`)).body;
      for (const s of steps) if (s.kind === 'tool-call') toolNames.push(s.body.toolName ?? '');
    }
    assert.deepEqual(toolNames.sort(), ['roll', 'time']);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await demo.close();
  }
});

test('the switch stops and restarts the simulation: participants disconnect, the ticker stops; bad requests are refused', async () => {
  const demo = await startDemo({ port: 0, host: '127.0.0.1', simulation: true, config: { 'demo.ticker.interval': '100ms' } });
  const post = (body: string, type = 'application/json'): Promise<{ status: number; body: Status & { code?: string }; headers: Headers }> =>
    json(`${demo.url}demo/simulation`, { method: 'POST', headers: { 'content-type': type }, body });
  const chatConnections = async (): Promise<number> =>
    (await json<{ path: string }[]>(`${demo.url}api/admin/resources?limit=100`)).body.filter((r) => r.path.startsWith('/fw/chat/')).length;
  try {
    await waitFor('six connected participants', async () => ((await chatConnections()) === 6 ? true : undefined), 20_000);
    const off = await post('{"running": false}');
    assert.equal(off.status, 200);
    assert.equal(off.body.running, false);
    assert.deepEqual(off.body.participants, []);
    await waitFor('the participants to disconnect', async () => ((await chatConnections()) === 0 ? true : undefined), 20_000);
    const stoppedAt = (await json<Status>(`${demo.url}demo/simulation`)).body.ticker.broadcasts;
    // Ten ticker intervals later, still no new tick.
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal((await json<Status>(`${demo.url}demo/simulation`)).body.ticker.broadcasts, stoppedAt);

    assert.equal((await post('{"running": "yes"}')).status, 400);
    assert.equal((await post('[]')).status, 400);
    assert.equal((await post('{"running": false}', 'text/plain')).status, 415);
    assert.equal((await post(`{"running": false, "pad": "${'x'.repeat(2000)}"}`)).status, 413);

    const on = await post('{"running": true}');
    assert.equal(on.status, 200);
    assert.equal(on.body.running, true);
    await waitFor('the participants to reconnect', async () => ((await chatConnections()) === 6 ? true : undefined), 20_000);
    await waitFor(
      'new ticks',
      async () => ((await json<Status>(`${demo.url}demo/simulation`)).body.ticker.broadcasts > stoppedAt ? true : undefined),
      20_000,
    );
  } finally {
    await demo.close();
  }
});

test('the switch is an admin write: no credential 401, a viewer 403, another site 403, an operator switches', async () => {
  const viewer = 'viewer-token-0123456789';
  const operator = 'operator-token-0123456789';
  const logger = new MemoryLogger();
  const demo: Demo = await startDemo({
    port: 0,
    host: '127.0.0.1',
    config: { configFile: false, logger, 'fw.auth.tokens': `v:viewer:${viewer},o:operator:${operator}` },
  });
  const post = (
    headers: Record<string, string>,
  ): Promise<{ status: number; body: { code?: string; running?: boolean }; headers: Headers }> =>
    json(`${demo.url}demo/simulation`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: '{"running": false}',
    });
  try {
    const anonymous = await post({});
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/);
    const wrong = await post({ authorization: 'Bearer not-a-token-at-all-000' });
    assert.equal(wrong.status, 401);
    const asViewer = await post({ authorization: `Bearer ${viewer}` });
    assert.equal(asViewer.status, 403);
    assert.equal(asViewer.body.code, 'forbidden');
    const crossSite = await post({ authorization: `Bearer ${operator}`, origin: 'http://evil.example' });
    assert.equal(crossSite.status, 403);
    const asOperator = await post({ authorization: `Bearer ${operator}` });
    assert.equal(asOperator.status, 200);
    assert.equal(asOperator.body.running, false);
    // Who switched it is logged (through fw.logger, module demo); the refused attempts switched nothing.
    const switched = logger.entries.filter((e) => e.message === 'simulation switched');
    assert.deepEqual(
      switched.map((e) => e.fields),
      [{ module: 'demo', running: false, principal: 'o' }],
    );
  } finally {
    await demo.close();
  }
});

test('npm start prints the URLs, the admin access and a stdio-bridge line that really connects', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, FW_DATA_DIR: '', DEMO_SIMULATION: 'false' };
  delete env.FW_ADMIN_MCP_WRITE_TOOLS;
  const child = spawn(process.execPath, [MAIN, '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const lines: string[] = [];
    const printed = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no printout within 60 s: ${lines.join('\n')}\n${stderr}`)), 60_000);
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        if (line.startsWith('Press Ctrl+C')) {
          clearTimeout(timer);
          resolve(lines.join('\n'));
        }
      });
      child.once('exit', (code) => reject(new Error(`exited ${code} before the printout: ${stderr}`)));
    });
    const url = /chat\s+(http:\/\/127\.0\.0\.1:\d+\/)/.exec(printed)?.[1];
    assert.ok(url, printed);
    assert.match(printed, new RegExp(`dashboard\\s+${url}fw/admin/`));
    assert.match(printed, new RegExp(`admin MCP\\s+${url}fw/admin/mcp\\s+\\(write tools on`));
    assert.match(printed, new RegExp(`app MCP\\s+${url}mcp`));
    for (const agent of ['assistant', 'research', 'lead', 'slow']) {
      const card: string | undefined = new RegExp(`${agent}\\s+(${url}fw/agent/${agent}/a2a/\\.well-known/agent-card\\.json)`).exec(
        printed,
      )?.[1];
      assert.ok(card, `${agent}'s card in the printout`);
      assert.equal((await fetch(card, { headers: { 'a2a-version': '1.0' } })).status, 200, card);
    }
    assert.match(printed, /admin access\s+loopback only/);
    assert.match(printed, /simulation\s+off/);
    assert.equal((await fetch(url)).status, 200);

    // The desktop-client snippet is valid JSON, and the command it names speaks MCP over stdio.
    const snippet = JSON.parse(/^\s+(\{"mcpServers".*)$/m.exec(printed)?.[1] ?? 'null') as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    const server = snippet.mcpServers['fw-admin']!;
    // The installed bin, by absolute path: resolvable from any directory, no npx lookup of a name.
    assert.equal(server.command, process.execPath);
    assert.deepEqual(server.args, [BRIDGE_BIN, `${url}fw/admin/mcp`]);
    assert.deepEqual(snippet.mcpServers['fw-demo'], { command: process.execPath, args: [BRIDGE_BIN, `${url}mcp`] });
    // The printed command itself, started from another directory as a desktop client would.
    const bridge = spawn(server.command, server.args, { cwd: tmpdir(), stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      const answer = new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the bridge did not answer within 30 s')), 30_000);
        createInterface({ input: bridge.stdout }).once('line', (line) => {
          clearTimeout(timer);
          resolve(line);
        });
      });
      bridge.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'live-test', version: '1' } } })}\n`,
      );
      const init = JSON.parse(await answer) as { id: number; result?: { serverInfo?: { name?: string } } };
      assert.equal(init.id, 1);
      assert.equal(init.result?.serverInfo?.name, 'fw-admin');
    } finally {
      bridge.stdin.end();
      bridge.kill();
    }
  } finally {
    child.kill('SIGTERM');
    assert.equal(await exited, 0, `the demo stops cleanly on SIGTERM: ${stderr}`);
  }
});

test('docs/demo.md documents every demo.* key with its environment variable, type and default', () => {
  const doc = readFileSync(new URL('../../../../docs/demo.md', import.meta.url), 'utf8');
  const rows = new Map<string, string[]>();
  for (const line of doc.split('\n')) {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const key = /^`(demo\.[^`]+)`$/.exec(cells[0] ?? '')?.[1];
    if (key) rows.set(key, cells);
  }
  for (const [key, def] of Object.entries(DEMO_CONFIG)) {
    const cells = rows.get(key);
    assert.ok(cells, `${key} is missing from docs/demo.md`);
    assert.equal(cells[1], `\`${envName(key)}\``, `${key}: environment variable`);
    assert.equal(cells[2], def.type, `${key}: type`);
    assert.equal(cells[3], `\`${String(def.default)}\``, `${key}: default`);
  }
  assert.equal(rows.size, Object.keys(DEMO_CONFIG).length, 'no row for a key that does not exist');
});

test('with a credential configured, the printout names it and the bridge entry carries the token variable', async () => {
  const demo = await startDemo({
    port: 0,
    host: '127.0.0.1',
    config: { configFile: false, 'fw.admin.auth.token': 'printout-token-0123456789' },
  });
  try {
    const text = firstRunText({ url: demo.url, fw: demo.fw, store: 'memory', simulation: demo.simulation.status() });
    assert.match(text, /admin access\s+needs a credential: Authorization: Bearer <token>/);
    assert.doesNotMatch(text, /printout-token/, 'the secret itself is never printed');
    const snippet = JSON.parse(/^\s+(\{"mcpServers".*)$/m.exec(text)?.[1] ?? 'null') as {
      mcpServers: Record<string, { env?: Record<string, string> }>;
    };
    assert.deepEqual(snippet.mcpServers['fw-admin']?.env, { FW_MCP_BRIDGE_TOKEN: '<your admin token>' });
    assert.match(text, /admin MCP\s+\S+\s+\(read tools only/, 'write tools stay off unless asked (npm start asks)');
  } finally {
    await demo.close();
  }
});

test('the simulation is bounded: an interval under its floor fails the start with the key named; the floor itself is accepted', async () => {
  for (const [key, min] of [
    ['demo.ticker.interval', MIN_TICKER_INTERVAL_MS],
    ['demo.simulation.message-interval', MIN_MESSAGE_INTERVAL_MS],
  ] as const) {
    await assert.rejects(
      startDemo({ port: 0, host: '127.0.0.1', simulation: true, config: { configFile: false, [key]: min - 1 } }),
      (err: Error & { code?: string }) =>
        err.code === 'invalid_config' && err.message.includes(key) && err.message.includes(`at least ${min}ms`),
    );
    const demo = await startDemo({ port: 0, host: '127.0.0.1', simulation: true, config: { configFile: false, [key]: min } });
    try {
      assert.equal(demo.simulation.running, true);
    } finally {
      await demo.close();
    }
  }
});
