// The pack check's smoke test. It runs in a scratch app outside the repository where only the
// packed tarballs are installed (scripts/pack-check.mjs), compiled there with the app's own
// TypeScript against the tarballs' declarations. Each step uses a package the way its docs say.
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Framework } from '@fw/runtime';
import { connect, type FwClient } from '@fw/client/node';
import { McpRegistry, mcp as mcpModule } from '@fw/mcp';
import { Agent, OnPrompt, agents, mountAgent, openAiProvider, MissingPeerError } from '@fw/agent';
import { checkMcp } from './mcp-client/check.mjs';
// The configuration keys of modules this script configures but does not call are typed by their packages.
import { cluster } from '@fw/redis';
import type {} from '@fw/admin';
// The README's 20-line app, copied from README.md by the pack check (port 0 instead of 8080).
import { fw, server } from './readme-app.js';

const token = process.env.ADMIN_TOKEN ?? '';
const redisUrl = process.env.PACK_CHECK_REDIS_URL ?? 'redis://127.0.0.1:6379';
const cleanups: (() => unknown)[] = [];

function step(name: string): void {
  console.log(`pack-check smoke: ${name}`);
}

function fail(message: string): never {
  throw new Error(message);
}

/** Resolves with the first value `poll` returns within `ms`, polling every 50 ms (bounded). */
async function until<T>(what: string, poll: () => T | undefined | Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await poll();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  return fail(`timed out waiting for ${what}`);
}

/** Messages a client receives, in order. */
function inbox(client: FwClient): string[] {
  const got: string[] = [];
  client.onMessage((data) => got.push(data));
  return got;
}

@Agent({ name: 'echo', description: 'Says back what it is told', headless: true })
class Echo {
  @OnPrompt()
  prompt(message: string): string {
    return `echo: ${message}`;
  }
}

async function main(): Promise<void> {
  // The README app installs admin(); the smoke adds the MCP server and the agents to it.
  await fw.use(mcpModule());
  await fw.use(agents());
  if (!server.listening) await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${token}` };

  step('the README app answers its own routes');
  const own = await fetch(`${base}/`);
  if (own.status !== 200 || (await own.text()) !== 'my app') fail(`GET / gave ${own.status}`);

  step('@fw/client/node: welcome, then a broadcast to the room');
  const alice = connect(`${base}/fw/chat/lobby`);
  const bob = connect(`${base}/fw/chat/lobby`);
  cleanups.push(
    () => alice.close(),
    () => bob.close(),
  );
  const aliceGot = inbox(alice);
  const bobGot = inbox(bob);
  await until('the welcome messages', () => (aliceGot.length > 0 && bobGot.length > 0 ? true : undefined));
  if (!aliceGot[0]?.includes('welcome to lobby')) fail(`unexpected welcome: ${aliceGot[0]}`);
  if (alice.transport !== 'websocket') fail(`the Node client used ${alice.transport}, not websocket`);
  alice.send('hello from the pack check');
  await until('the broadcast at bob', () => (bobGot.some((m) => m.includes('hello from the pack check')) ? true : undefined));

  step('admin REST API: 401 without the token, the overview with it');
  const denied = await fetch(`${base}/api/admin/overview`);
  await denied.body?.cancel();
  if (denied.status !== 401) fail(`GET /api/admin/overview without a token gave ${denied.status}`);
  const overview = await fetch(`${base}/api/admin/overview`, { headers: auth });
  if (overview.status !== 200) fail(`GET /api/admin/overview gave ${overview.status}: ${await overview.text()}`);
  const body = (await overview.json()) as Record<string, unknown>;
  if (typeof body !== 'object' || body === null) fail('the overview is not a JSON object');

  step('the dashboard page and its client script');
  const page = await fetch(`${base}/fw/admin/`, { headers: auth });
  const html = await page.text();
  if (page.status !== 200 || !html.includes('<html')) fail(`GET /fw/admin/ gave ${page.status}`);
  const clientJs = await fetch(`${base}/fw/client.js`);
  const js = await clientJs.text();
  if (clientJs.status !== 200 || !js.includes('export')) fail(`GET /fw/client.js gave ${clientJs.status}`);

  step('MCP: the official SDK client lists and calls a tool');
  const off = McpRegistry.of(fw).registerTool({
    name: 'pack_check_add',
    description: 'Adds two numbers',
    params: [
      { name: 'a', type: 'number' },
      { name: 'b', type: 'number' },
    ],
    handler: (args) => Number(args.a) + Number(args.b),
  });
  cleanups.push(off);
  const mcp = await checkMcp(`${base}/mcp`, token);
  if (!mcp.tools.includes('pack_check_add')) fail(`tools/list lacks pack_check_add: ${mcp.tools.join(', ')}`);
  // The admin tools live on the admin's own gated endpoint, never on the app's server by default.
  if (mcp.tools.some((t) => t.startsWith('fw_'))) fail(`the app's /mcp offers admin fw_* tools: ${mcp.tools.join(', ')}`);
  const adminMcp = await checkMcp(`${base}/fw/admin/mcp`, token, false);
  if (!adminMcp.tools.some((t) => t.startsWith('fw_'))) fail(`/fw/admin/mcp lacks the admin fw_* tools: ${adminMcp.tools.join(', ')}`);
  if (mcp.sum !== '5') fail(`pack_check_add(2, 3) answered ${mcp.sum}`);

  step('fw-mcp-stdio-bridge from the packed @fw/mcp: --help, then initialize through it');
  await checkBridge(`${base}/mcp`);

  step('an @Agent over A2A (JSON-RPC message/send)');
  mountAgent(fw, Echo);
  const card = await fetch(`${base}/fw/agent/echo/a2a/.well-known/agent-card.json`);
  const cardBody = (await card.json()) as { name?: string };
  if (card.status !== 200 || cardBody.name !== 'echo') fail(`agent card: ${card.status} ${JSON.stringify(cardBody)}`);
  const rpc = await fetch(`${base}/fw/agent/echo/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'ping' }] } },
    }),
  });
  const answer = (await rpc.json()) as { result?: { status?: { state?: string } }; error?: unknown };
  if (answer.error || answer.result?.status?.state !== 'completed' || !JSON.stringify(answer.result).includes('echo: ping')) {
    fail(`A2A message/send: ${JSON.stringify(answer)}`);
  }

  step('an optional peer that is not installed (ai) fails with a clear error');
  const runtime = openAiProvider({ model: 'm', baseURL: 'http://127.0.0.1:9/v1' });
  const missing = await (async () => {
    for await (const part of runtime.stream({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal)) void part;
  })().then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(missing instanceof MissingPeerError) || !missing.message.includes("'ai'"))
    fail(`expected a MissingPeerError for 'ai', got ${String(missing)}`);

  step('@fw/redis: two cluster nodes on the local Redis deliver a broadcast across');
  await checkCluster();
}

async function checkBridge(mcpUrl: string): Promise<void> {
  const help = spawn('npx', ['--no-install', 'fw-mcp-stdio-bridge', '--help'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let usage = '';
  help.stdout.setEncoding('utf8').on('data', (chunk: string) => (usage += chunk));
  const [helpCode] = (await once(help, 'exit')) as [number | null];
  if (helpCode !== 0 || !usage.includes('usage: fw-mcp-stdio-bridge')) fail(`fw-mcp-stdio-bridge --help exited ${helpCode}: ${usage}`);

  const bridge = spawn('npx', ['--no-install', 'fw-mcp-stdio-bridge', mcpUrl], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, FW_MCP_BRIDGE_TOKEN: token },
  });
  cleanups.push(() => bridge.kill());
  let out = '';
  bridge.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  bridge.stdin.write(
    `${JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'pack-check', version: '1.0.0' } },
    })}\n`,
  );
  const line = await until('the bridge to answer initialize', () => out.split('\n').find((l) => l.includes('"id":1')), 20_000);
  const reply = JSON.parse(line) as { result?: { serverInfo?: { name?: string } } };
  if (!reply.result?.serverInfo?.name) fail(`the bridge answered: ${line}`);
  bridge.stdin.end();
  const [code] = (await once(bridge, 'exit')) as [number | null];
  if (code !== 0) fail(`the bridge exited with ${code} after stdin closed`);
}

async function checkCluster(): Promise<void> {
  const prefix = process.env.PACK_CHECK_REDIS_PREFIX ?? `fw-pack-check-${randomUUID()}`;
  const node = (): Framework =>
    new Framework({
      configFile: false,
      'fw.cluster.redis-url': redisUrl,
      'fw.cluster.prefix': prefix,
    });
  const a = node();
  const b = node();
  cleanups.push(
    () => a.close(),
    () => b.close(),
  );
  for (const n of [a, b]) {
    await n.use(cluster());
    n.handle('/room/{id}', {});
  }
  const [addressA, addressB] = await Promise.all([a.listen(0, '127.0.0.1'), b.listen(0, '127.0.0.1')]);
  if (!a.services.get('cluster') || !b.services.get('cluster')) fail('@fw/redis did not start cluster mode');
  const onA = connect(`http://127.0.0.1:${addressA.port}/fw/room/x`);
  const onB = connect(`http://127.0.0.1:${addressB.port}/fw/room/x`);
  cleanups.push(
    () => onA.close(),
    () => onB.close(),
  );
  const gotB = inbox(onB);
  await until('both clients to connect', () => (onA.state === 'open' && onB.state === 'open' ? true : undefined));
  // Resent until it arrives: node B's subscription may reach Redis a moment after its client is open.
  let sent = 0;
  await until('a broadcast from node A at node B', () => {
    if (gotB.some((m) => m.includes('across the cluster'))) return true;
    if (sent++ % 10 === 0) onA.send('across the cluster');
    return undefined;
  });
}

const timeout = setTimeout(() => {
  console.error('pack-check smoke: timed out after 90 s');
  process.exit(1);
}, 90_000);

main().then(
  async () => {
    for (const c of cleanups.reverse()) await c();
    await fw.close();
    server.closeAllConnections();
    server.close();
    clearTimeout(timeout);
    console.log('pack-check smoke: ok');
  },
  (err: unknown) => {
    console.error('pack-check smoke: FAILED:', err);
    process.exit(1);
  },
);
