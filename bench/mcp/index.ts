/**
 * bench/mcp: `tools/call` throughput and latency of fw's MCP endpoint against the official SDKs,
 * the same `echo` tool everywhere, in the same run:
 *   - 2026-07-28 (stateless, the `_meta` envelope and its headers, JSON replies): fw against the
 *     v2 SDK's `createMcpHandler` (@modelcontextprotocol/server);
 *   - 2025 Streamable HTTP (one session reused, JSON replies): fw against the v1 SDK's McpServer +
 *     StreamableHTTPServerTransport (@modelcontextprotocol/sdk);
 *   - fw's WebSocket transport (2025 session), against the same v1 SDK server.
 * Each server runs in its own child process, all started once; this process generates the load
 * over loopback with a fixed number of requests in flight, one measurement at a time, each after
 * its own warm-up. Rounds alternate the order (even rounds SDK first, odd rounds fw first) so
 * neither side always runs on a warmer or cooler machine.
 *
 *   npm run build && node bench/dist/mcp/index.js [--duration 5] [--warmup 2] [--concurrency 32] [--rounds 3]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
};
const DURATION_MS = arg('duration', 5) * 1000;
const WARMUP_MS = arg('warmup', 2) * 1000;
const CONCURRENCY = arg('concurrency', 32);
const ROUNDS = arg('rounds', 3);
const VERSION = '2025-06-18';
const MODERN = '2026-07-28';

interface Result {
  name: string;
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
}

async function startServer(kind: 'fw' | 'sdk' | 'sdk2'): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./server.js', import.meta.url)), kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /\{"port":(\d+)\}/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  return { child, port };
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});
const call = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello ${id}"}}}`;

function post(
  agent: Agent,
  port: number,
  body: string,
  session?: string,
): Promise<{ status: number; session: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': VERSION,
          ...(session ? { 'mcp-session-id': session } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, session: res.headers['mcp-session-id'] as string | undefined, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `one` in CONCURRENCY loops: a warm-up, then DURATION_MS of measured calls. */
async function drive(name: string, one: (id: number) => Promise<void>): Promise<Result> {
  let id = 1;
  const latencies: number[] = [];
  let measuring = false;
  let stop = false;
  const loops = Array.from({ length: CONCURRENCY }, async () => {
    while (!stop) {
      const t0 = process.hrtime.bigint();
      await one(id++);
      if (measuring) latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  });
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  measuring = true;
  const started = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, DURATION_MS));
  measuring = false;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  stop = true;
  await Promise.all(loops);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? NaN;
  return { name, requests: latencies.length, seconds, p50: pct(0.5), p99: pct(0.99) };
}

async function benchHttp(name: string, port: number): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const init = await post(agent, port, initialize);
  if (init.status !== 200 || !init.session) throw new Error(`${name}: initialize failed: ${init.status} ${init.text}`);
  const session = init.session;
  await post(agent, port, '{"jsonrpc":"2.0","method":"notifications/initialized"}', session);
  const check = await post(agent, port, call(0), session);
  if (!check.text.includes('hello 0') || !check.text.startsWith('{'))
    throw new Error(`${name}: unexpected reply ${check.status} ${check.text}`);
  try {
    return await drive(name, async (id) => {
      const r = await post(agent, port, call(id), session);
      if (r.status !== 200) throw new Error(`${name}: HTTP ${r.status} ${r.text}`);
    });
  } finally {
    agent.destroy();
  }
}

/** One 2026-07-28 tools/call: the envelope in `params._meta` and the headers the revision requires. */
const modernCall = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello ${id}"},"_meta":{"io.modelcontextprotocol/protocolVersion":"${MODERN}","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}`;
const MODERN_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
};

function postModern(agent: Agent, port: number, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent, headers: MODERN_HEADERS }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function benchModern(name: string, port: number): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const check = await postModern(agent, port, modernCall(0));
  if (check.status !== 200 || !check.text.includes('hello 0') || !check.text.startsWith('{'))
    throw new Error(`${name}: unexpected reply ${check.status} ${check.text}`);
  try {
    return await drive(name, async (id) => {
      const r = await postModern(agent, port, modernCall(id));
      if (r.status !== 200) throw new Error(`${name}: HTTP ${r.status} ${r.text}`);
    });
  } finally {
    agent.destroy();
  }
}

async function benchWs(name: string, port: number): Promise<Result> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/mcp`, 'mcp', { perMessageDeflate: false });
  const waiting = new Map<number, () => void>();
  ws.on('message', (data) => {
    const text = data.toString();
    const m = /"id":(\d+)/.exec(text);
    const w = m ? waiting.get(Number(m[1])) : undefined;
    if (w) {
      waiting.delete(Number(m![1]));
      w();
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const rpc = (id: number, body: string) =>
    new Promise<void>((resolve) => {
      waiting.set(id, resolve);
      ws.send(body);
    });
  await rpc(0, initialize);
  ws.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  try {
    return await drive(name, (id) => rpc(id, call(id)));
  } finally {
    ws.close();
  }
}

function fmt(r: Result): string {
  const rps = r.requests / r.seconds;
  return `| ${r.name.padEnd(44)} | ${rps.toFixed(0).padStart(8)} | ${r.p50.toFixed(2).padStart(7)} | ${r.p99.toFixed(2).padStart(7)} |`;
}

const rps = (r: Result): number => r.requests / r.seconds;
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const servers = {
  fw: await startServer('fw'),
  sdk: await startServer('sdk'),
  sdk2: await startServer('sdk2'),
};
const SDK2 = 'SDK v2 createMcpHandler, 2026-07-28';
const FW_MODERN = 'fw, 2026-07-28 (stateless)';
const SDK1 = 'SDK v1 McpServer + Streamable HTTP, 2025';
const FW_HTTP = 'fw Streamable HTTP, 2025 session';
const FW_WS = 'fw WebSocket, 2025 session';
type Measure = [name: string, run: () => Promise<Result>];
const sdkFirst: Measure[] = [
  [SDK2, () => benchModern(SDK2, servers.sdk2.port)],
  [FW_MODERN, () => benchModern(FW_MODERN, servers.fw.port)],
  [SDK1, () => benchHttp(SDK1, servers.sdk.port)],
  [FW_HTTP, () => benchHttp(FW_HTTP, servers.fw.port)],
  [FW_WS, () => benchWs(FW_WS, servers.fw.port)],
];
const fwFirst: Measure[] = [sdkFirst[1]!, sdkFirst[0]!, sdkFirst[4]!, sdkFirst[3]!, sdkFirst[2]!];

console.log(
  `bench/mcp: tools/call, ${CONCURRENCY} in flight, ${DURATION_MS / 1000} s per measurement after ${WARMUP_MS / 1000} s warm-up, ${ROUNDS} rounds, node ${process.version}, load ${load()}`,
);
const ratios = { modern: [] as number[], http: [] as number[], ws: [] as number[] };
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? sdkFirst : fwFirst;
    const results = new Map<string, Result>();
    for (const [name, run] of order) results.set(name, await run());
    const of = (name: string): Result => results.get(name)!;
    console.log(`\nround ${round} (${round % 2 === 1 ? 'SDK first' : 'fw first'}), load ${load()}\n`);
    console.log(`| ${'server'.padEnd(44)} |    req/s | p50 ms  | p99 ms  |`);
    console.log(`|${'-'.repeat(46)}|---------:|--------:|--------:|`);
    for (const [name] of sdkFirst) console.log(fmt(of(name)));
    const m = rps(of(FW_MODERN)) / rps(of(SDK2));
    const h = rps(of(FW_HTTP)) / rps(of(SDK1));
    const w = rps(of(FW_WS)) / rps(of(SDK1));
    ratios.modern.push(m);
    ratios.http.push(h);
    ratios.ws.push(w);
    console.log(
      `\nfw 2026-07-28 / SDK v2: ${m.toFixed(2)}x   fw HTTP / SDK v1: ${h.toFixed(2)}x   fw WebSocket / SDK v1: ${w.toFixed(2)}x`,
    );
  }
} finally {
  for (const s of Object.values(servers)) s.child.kill();
}
const range = (xs: number[]): string => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}x`;
console.log(`\nover ${ROUNDS} rounds (load ${load()}):`);
console.log(`  fw 2026-07-28 / SDK v2 createMcpHandler: ${range(ratios.modern)} (target >= 1.5x in every round)`);
console.log(`  fw 2025 HTTP / SDK v1:                  ${range(ratios.http)}`);
console.log(`  fw WebSocket / SDK v1:                  ${range(ratios.ws)}`);
