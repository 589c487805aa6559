/**
 * The browser build in a real browser (Debian's Chromium through playwright-core, never a
 * downloaded one): the page imports `/fw/client.js` from the runtime and uses the browser's own
 * WebSocket and fetch streaming. Skipped when Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TransportName } from '../dist/index.js';
import { serve, type Served } from './helpers.js';

const CHROMIUM = process.env.FW_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM}`;
const ROOM = '/fw/chat/lobby';
const PAGE = `<!doctype html><meta charset="utf-8"><title>fw client</title>
<script type="module">
  import { connect } from '/fw/client.js';
  window.started = (transports, reconnect) => {
    const c = connect('${ROOM}', { transports, reconnect });
    window.client = c;
    window.got = [];
    window.errors = [];
    c.onMessage((d) => window.got.push(d));
    c.onError((e) => window.errors.push(e.code));
    return new Promise((resolve) => c.onStateChange((s) => s === 'open' && resolve(c.transport)));
  };
  window.ready = true;
</script>`;

interface Fixture {
  server: Served;
  browser: Browser;
  page: Page;
}

async function fixture(options: Record<string, unknown> = {}): Promise<Fixture> {
  const server = await serve(options, (fw) => {
    fw.handle('/chat/{room}', { message: (r, d) => void r.write(`echo:${d}`) });
    fw.route('GET', '/page', (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  });
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
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(server.url('/page'));
  await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
  return { server, browser, page };
}

const got = (page: Page): Promise<string[]> => page.evaluate(() => (window as unknown as { got: string[] }).got);

test('browser: each transport connects, receives broadcasts, sends, and resumes a killed socket mid-stream without loss or duplicates', {
  skip,
}, async (t) => {
  const { server, browser, page } = await fixture();
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  for (const transport of ['websocket', 'sse', 'long-polling'] as TransportName[]) {
    const used = await page.evaluate(
      ([ts]) =>
        (window as unknown as { started: (t: string[], r: object) => Promise<string> }).started(ts as string[], {
          minDelay: 10,
          maxDelay: 50,
        }),
      [[transport]],
    );
    assert.equal(used, transport);
    await page.evaluate(() => (window as unknown as { client: { send(d: string): void } }).client.send('from the page'));
    await page.waitForFunction(() => (window as unknown as { got: string[] }).got.includes('echo:from the page'));

    const COUNT = 1000;
    for (let i = 0; i < COUNT; i++) {
      server.fw.runtime.broadcast(ROOM, `m${i}`);
      if (i === 400) assert.ok(server.killSockets() > 0);
      if (i % 50 === 49) await new Promise((r) => setImmediate(r));
    }
    await page.waitForFunction((n) => (window as unknown as { got: string[] }).got.length >= n, COUNT + 1);
    await new Promise((r) => setTimeout(r, 50));
    const messages = await got(page);
    assert.deepEqual(messages, ['echo:from the page', ...Array.from({ length: COUNT }, (_, i) => `m${i}`)], transport);
    await page.evaluate(() => (window as unknown as { client: { close(): void } }).client.close());
  }
});

test('browser: a forgotten resource is found out on the next transport (browsers hide a refused upgrade) and reconnected fresh over WebSocket with since', {
  skip,
}, async (t) => {
  const { server, browser, page } = await fixture({ 'fw.resume.grace': 300, 'fw.broadcaster.destroy-empty': false });
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  await page.evaluate(() =>
    (window as unknown as { started: (t?: string[], r?: object) => Promise<string> }).started(undefined, {
      minDelay: 800,
      maxDelay: 800,
      jitter: 0,
    }),
  );
  const uuid = await page.evaluate(() => (window as unknown as { client: { uuid: string } }).client.uuid);
  for (let i = 0; i < 50; i++) server.fw.runtime.broadcast(ROOM, `m${i}`);
  await page.waitForFunction(() => (window as unknown as { got: string[] }).got.length === 50);
  server.killSockets();
  for (let i = 50; i < 100; i++) server.fw.runtime.broadcast(ROOM, `m${i}`);
  await page.waitForFunction(() => (window as unknown as { got: string[] }).got.length === 100);
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(
    await got(page),
    Array.from({ length: 100 }, (_, i) => `m${i}`),
  );
  const after = await page.evaluate(() => {
    const w = window as unknown as { client: { uuid: string; transport: string }; errors: string[] };
    return { uuid: w.client.uuid, transport: w.client.transport, errors: w.errors };
  });
  assert.notEqual(after.uuid, uuid);
  assert.equal(after.transport, 'websocket');
  assert.ok(after.errors.includes('unknown_tracking_id'), after.errors.join(', '));
  await page.evaluate(() => (window as unknown as { client: { close(): void } }).client.close());
});
