/**
 * bench/mcp: `tools/call` throughput and latency of fw's MCP endpoint over Streamable HTTP
 * (one session reused, JSON replies) and over WebSocket, against the SDK's own McpServer +
 * StreamableHTTPServerTransport, in the same run. Each server runs in its own child process; this
 * process generates the load over loopback with a fixed number of requests in flight.
 *
 *   npm run build && node bench/dist/mcp/index.js [--duration 5] [--concurrency 32]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
};
const DURATION_MS = arg('duration', 5) * 1000;
const WARMUP_MS = arg('warmup', 1) * 1000;
const CONCURRENCY = arg('concurrency', 32);
const VERSION = '2025-06-18';

interface Result {
  name: string;
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
}

async function startServer(kind: 'fw' | 'sdk'): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./server.js', import.meta.url)), kind], { stdio: ['ignore', 'pipe', 'inherit'] });
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

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
const call = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello ${id}"}}}`;

function post(agent: Agent, port: number, body: string, session?: string): Promise<{ status: number; session: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': VERSION,
        ...(session ? { 'mcp-session-id': session } : {}),
      },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, session: res.headers['mcp-session-id'] as string | undefined, text }));
    });
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
  if (!check.text.includes('hello 0') || !check.text.startsWith('{')) throw new Error(`${name}: unexpected reply ${check.status} ${check.text}`);
  try {
    return await drive(name, async (id) => {
      const r = await post(agent, port, call(id), session);
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
  const rpc = (id: number, body: string) => new Promise<void>((resolve) => {
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
  return `| ${r.name.padEnd(34)} | ${rps.toFixed(0).padStart(8)} | ${r.p50.toFixed(2).padStart(7)} | ${r.p99.toFixed(2).padStart(7)} |`;
}

const results: Result[] = [];
for (const [kind, runs] of [
  ['sdk', [['SDK McpServer + Streamable HTTP', benchHttp]]],
  ['fw', [['fw Streamable HTTP (JSON replies)', benchHttp], ['fw WebSocket', benchWs]]],
] as const) {
  const { child, port } = await startServer(kind);
  try {
    for (const [name, fn] of runs) results.push(await fn(name, port));
  } finally {
    child.kill();
  }
}

const rps = (r: Result | undefined) => (r ? r.requests / r.seconds : NaN);
const [sdk, fwHttp, fwWs] = results;
console.log(`\ntools/call, ${CONCURRENCY} in flight, ${DURATION_MS / 1000}s per run after ${WARMUP_MS / 1000}s warm-up, node ${process.version}\n`);
console.log('| server                             |    req/s | p50 ms  | p99 ms  |');
console.log('|------------------------------------|---------:|--------:|--------:|');
for (const r of results) console.log(fmt(r));
console.log(`\nfw HTTP / SDK: ${(rps(fwHttp) / rps(sdk)).toFixed(2)}x (target >= 1.5x)`);
console.log(`fw WS   / SDK: ${(rps(fwWs) / rps(sdk)).toFixed(2)}x (target >= 3x)`);
