/**
 * Dashboard benchmark: the page's own memory and first render with 0, 1 000, 10 000 and 100 000
 * resources on the server, its memory after a burst of live traffic (the feed and tables are
 * bounded), and a peer: the same page holding every resource in memory (what a dashboard that
 * loads the whole list instead of paging would carry).
 *
 *   npx tsc -b bench && node bench/dist/dashboard/run.js [--sizes=0,1000,10000,100000] [--burst=10]
 *
 * Uses Debian's Chromium (/usr/bin/chromium or FW_CHROMIUM) through playwright-core; it never
 * downloads a browser. Resources are parked in the runtime's registry (real FwResource objects
 * served by the real admin API, without a socket each) so that 100 000 of them fit on one
 * machine. Not a test: it prints a Markdown table for docs/benchmarks.md.
 */
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Framework } from '@fw/runtime';
import { FwResource } from '@fw/runtime/internals';
import { connect } from '@fw/client/node';
import { admin } from '@fw/admin';
import { agents } from '@fw/agent';
import { mcp } from '@fw/mcp';

const CHROMIUM = process.env.FW_CHROMIUM ?? '/usr/bin/chromium';
const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const SIZES = (args.get('sizes') ?? '0,1000,10000,100000').split(',').map(Number);
const BURST_SECONDS = Number(args.get('burst') ?? 10);
const RUNS = Number(args.get('runs') ?? 3);

interface Sample {
  firstRenderMs: number;
  fcpMs: number;
  heapMB: number;
  domNodes: number;
}

async function measure(browser: Browser, base: string): Promise<Sample> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await page.goto(`${base}/fw/admin/`);
    // First render: counters filled, the stream connected and the first page of resources drawn.
    await page.waitForFunction(
      () => {
        const range = document.querySelector('#res-table .pager .range')?.textContent ?? '';
        return (
          document.getElementById('conn')?.dataset.state === 'connected' &&
          (document.querySelector('dd[data-counter="connections"]') as HTMLElement | null)?.dataset.value !== undefined &&
          /of|No entries/.test(range)
        );
      },
      undefined,
      { timeout: 30_000, polling: 'raf' },
    );
    const firstRenderMs = await page.evaluate(() => performance.now());
    const fcpMs = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN);
    const { heapMB, domNodes } = await heap(page);
    return { firstRenderMs, fcpMs, heapMB, domNodes };
  } finally {
    await page.close();
  }
}

async function heap(page: Page): Promise<{ heapMB: number; domNodes: number }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  await cdp.detach();
  const m = new Map(metrics.map((x) => [x.name, x.value]));
  return { heapMB: (m.get('JSHeapUsedSize') ?? NaN) / 1e6, domNodes: m.get('Nodes') ?? NaN };
}

function park(fw: Framework, count: number, into: FwResource[]): void {
  const rt = fw.runtime;
  const handler = rt.handlers.find((h) => h.path === '/fw/bench/{room}')!;
  const req = { socket: { remoteAddress: '127.0.0.1' } } as unknown as IncomingMessage;
  for (let i = 0; i < count; i++) {
    const r = new FwResource(rt, handler, randomUUID(), {
      transport: i % 2 ? 'websocket' : 'sse',
      protocol: 'fw',
      path: `/fw/bench/room${i % 10}`,
      params: { room: `room${i % 10}` },
      query: new URLSearchParams(),
      req,
      principal: undefined,
      attributes: undefined,
    });
    rt.resources.add(r);
    into.push(r);
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '—');

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.error(`Chromium not found at ${CHROMIUM}; install it (apt-get install chromium) or set FW_CHROMIUM.`);
    process.exit(2);
  }
  const fw = new Framework({ configFile: false, 'fw.port': 0 });
  for (const module of [mcp(), agents(), admin()]) await fw.use(module);
  await fw.start();
  fw.handle('/bench/{room}', {});
  const address = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${address.port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
  const parked: FwResource[] = [];
  const rows: string[] = [];
  let baseline: Sample | undefined;
  try {
    for (const size of SIZES) {
      park(fw, size - parked.length, parked);
      const samples: Sample[] = [];
      for (let i = 0; i < RUNS; i++) samples.push(await measure(browser, base));
      const s: Sample = {
        firstRenderMs: median(samples.map((x) => x.firstRenderMs)),
        fcpMs: median(samples.map((x) => x.fcpMs)),
        heapMB: median(samples.map((x) => x.heapMB)),
        domNodes: median(samples.map((x) => x.domNodes)),
      };
      baseline ??= s;
      const t0 = performance.now();
      const res = await fetch(`${base}/api/admin/resources?offset=${Math.max(0, size - 50)}&limit=50`);
      const bytes = (await res.arrayBuffer()).byteLength;
      const apiMs = performance.now() - t0;
      rows.push(
        `| ${size.toLocaleString('en-US')} | ${f1(s.firstRenderMs)} | ${f1(s.fcpMs)} | ${f1(s.heapMB)} | ${s.domNodes} | ${f1(s.heapMB / baseline.heapMB)}× | ${f1(apiMs)} ms, ${(bytes / 1024).toFixed(1)} KB |`,
      );
      console.error(`size ${size}: first render ${f1(s.firstRenderMs)} ms, heap ${f1(s.heapMB)} MB, ${s.domNodes} DOM nodes`);
    }

    // Live traffic: 200 broadcasts/s plus connect/disconnect churn for BURST_SECONDS.
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/fw/admin/`);
    await page.waitForFunction(() => document.getElementById('conn')?.dataset.state === 'connected');
    const before = await heap(page);
    const room = fw.broadcasters.lookup('/fw/bench/live', true);
    let sent = 0;
    const ticker = setInterval(() => {
      for (let i = 0; i < 20; i++) {
        room.broadcast(`tick ${sent++}`);
      }
    }, 100);
    const churn: ReturnType<typeof connect>[] = [];
    const churner = setInterval(() => {
      churn.push(connect(`${base}/fw/bench/live`, { transports: ['websocket'], reconnect: false }));
      if (churn.length > 20) churn.shift()!.close();
    }, 100);
    await new Promise((r) => setTimeout(r, BURST_SECONDS * 1000));
    clearInterval(ticker);
    clearInterval(churner);
    for (const c of churn) c.close();
    await new Promise((r) => setTimeout(r, 1000));
    const afterBurst = await heap(page);
    const feedLines = await page.locator('#feed li').count();

    // Peer: the same page holding the whole resource list (100 requests of 1 000), as a
    // dashboard that loads everything would.
    const all = await page.evaluate(async () => {
      const keep: unknown[] = [];
      for (let offset = 0; ; offset += 1000) {
        const r = await fetch(`/api/admin/resources?offset=${offset}&limit=1000`);
        const items = (await r.json()) as unknown[];
        keep.push(...items);
        if (items.length < 1000) break;
      }
      (window as unknown as { __all: unknown[] }).__all = keep;
      return keep.length;
    });
    const loaded = await heap(page);
    await page.close();

    const last = SIZES[SIZES.length - 1]!;
    console.log(`## Dashboard

Page memory and first render of the admin dashboard (\`bench/dashboard\`, Chromium ${browser.version()}, 1280×900,
median of ${RUNS} loads; resources parked in the runtime's registry and served by the real admin API;
${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)} at the end of the run).
"First render" is the time from navigation to the counters filled, the event stream connected and
the first page of resources drawn.

| resources on the server | first render (ms) | first contentful paint (ms) | JS heap after GC (MB) | DOM nodes | heap vs. empty server | API: last page of 50 |
|---:|---:|---:|---:|---:|---:|---|
${rows.join('\n')}

Live traffic for ${BURST_SECONDS} s (${sent.toLocaleString('en-US')} broadcasts, aiming at 200/s, and a connect/disconnect every 100 ms) with
${last.toLocaleString('en-US')} resources: heap ${f1(before.heapMB)} MB → ${f1(afterBurst.heapMB)} MB, DOM nodes ${before.domNodes} → ${afterBurst.domNodes}, ${feedLines} feed lines (bounded).

Peer, same page and process tree: holding the whole list (${all.toLocaleString('en-US')} resources fetched in pages of 1 000) takes the
heap from ${f1(afterBurst.heapMB)} MB to ${f1(loaded.heapMB)} MB (${f1(loaded.heapMB / afterBurst.heapMB)}×); the paged table never does this.
`);
  } finally {
    for (const r of parked) fw.runtime.resources.remove(r);
    await browser.close();
    await fw.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
