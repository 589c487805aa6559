/**
 * What a WebSocket connect costs a server on Bun, fw against Bun's own pub/sub, and part by part:
 * server CPU per 1,000 connections split by thread (the main thread, JIT compiler threads, GC
 * helpers, the allocator's scavenger), and the JavaScript heap each connection keeps (bytes, and
 * objects of each type, from `bun:jsc`'s `heapStats()`). Each round starts a fresh server per
 * variant, in alternating order, and opens `--connections` sockets to it from this process (fw
 * subscribers with `?fw=1&ids=implicit`, as bench/fanout's `fw-proto-bun`).
 *
 *   npm run bench:bun-connect -- [--connections 10000] [--rounds 3] [--bun <path>]
 *       [--variants fw,bun,fw-skip=resource,fw-skip=resource+admission,fw-skip=resource+admission+route]
 *
 * The `fw-skip=…` variants replace parts of fw's connect (bench/bun-connect/server.ts): what is
 * left is what the rest costs. They are a diagnosis, not a configuration anyone runs.
 */
import WebSocket from 'ws';
import { arg } from '../common/args.js';
import { BenchChild } from '../common/child.js';
import { fmt, markdownTable, textTable, type Cell } from '../common/table.js';

const CONNECTIONS = Number(arg('connections', '10000'));
const ROUNDS = Number(arg('rounds', '3'));
const BUN = arg('bun', process.env.BUN ?? 'bun');
const VARIANTS = arg('variants', 'fw,bun,fw-skip=resource,fw-skip=resource+admission,fw-skip=resource+admission+route').split(',');
/** Connections being opened at once. */
const CONCURRENCY = 200;

interface Measured {
  opened: number;
  cpuMs: number;
  perThread: Record<string, number>;
  heapPerConn: number;
  extraPerConn: number;
  objectsPerConn: number;
  types: Record<string, number>;
}

async function connectAll(port: number, fw: boolean): Promise<WebSocket[]> {
  const url = `ws://127.0.0.1:${port}/fw/bench${fw ? '?fw=1&ids=implicit' : ''}`;
  const sockets: WebSocket[] = [];
  let next = 0;
  const one = async (): Promise<void> => {
    while (next < CONNECTIONS) {
      next++;
      const ws = new WebSocket(url, { perMessageDeflate: false });
      sockets.push(ws);
      await new Promise<void>((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, one));
  return sockets;
}

async function measure(variant: string): Promise<Measured> {
  const [kind, skip] = variant === 'bun' ? ['bun', ''] : ['fw', (variant.split('=')[1] ?? '').replaceAll('+', ',')];
  const server = new BenchChild(variant, new URL('./server.js', import.meta.url), [kind!, skip!], [], BUN);
  try {
    const { port } = (await server.next('ready')) as unknown as { port: number };
    server.send({ type: 'mark' });
    await server.next('marked');
    const sockets = await connectAll(port, kind === 'fw');
    // The last opens may still be on their way through the server (fw counts resources made).
    for (let i = 0; i < 100; i++) {
      server.send({ type: 'count' });
      if (((await server.next('count')) as unknown as { opened: number }).opened >= CONNECTIONS) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    server.send({ type: 'measure' });
    const m = (await server.next('measured')) as unknown as Measured;
    for (const ws of sockets) ws.terminate();
    return m;
  } finally {
    await server.stop();
  }
}

const THREADS = ['bun', 'JITWorker', 'HeapHelper', 'mi-scavenger'];
const headers = [
  'variant',
  'connect CPU ms per 1k',
  ...THREADS.map((t) => `${t} ms per 1k`),
  'heap B/conn',
  'extra B/conn',
  'objects/conn',
];
const rows: Cell[][] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const order = round % 2 === 1 ? VARIANTS : [...VARIANTS].reverse();
  for (const variant of order) {
    console.log(`  round ${round}: ${variant}…`);
    const m = await measure(variant);
    const per1k = (ms: number): string => fmt((ms / m.opened) * 1000, 1);
    rows.push([
      variant,
      per1k(m.cpuMs),
      ...THREADS.map((t) => per1k(m.perThread[t] ?? 0)),
      fmt(m.heapPerConn),
      fmt(m.extraPerConn),
      fmt(m.objectsPerConn, 2),
    ]);
    console.log(`    ${m.opened} open; objects per connection by type: ${JSON.stringify(m.types)}`);
  }
}
console.log(`\n${CONNECTIONS} connections, ${ROUNDS} rounds\n`);
console.log(textTable(headers, rows));
console.log(`\nMarkdown:\n\n${markdownTable(headers, rows)}`);
