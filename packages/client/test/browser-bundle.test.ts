/**
 * The bundle in Chromium (Debian's, through playwright-core): a page that imports `/fw/client.js`
 * makes exactly one request for the client, a reload revalidates it with a 304, and a plain
 * `<script src="/fw/client.global.js">` page connects through `fw.connect`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { serve } from './helpers.js';

const CHROMIUM = process.env.FW_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM}`;

const MODULE_PAGE = `<!doctype html><meta charset="utf-8"><title>fw bundle</title>
<script type="module">
  import { connect } from '/fw/client.js';
  const c = connect('/fw/chat/lobby');
  c.onMessage((d) => (window.got = d));
  c.onStateChange((s) => { if (s === 'open') { window.transport = c.transport; c.send('hello'); } });
</script>`;

const SCRIPT_PAGE = `<!doctype html><meta charset="utf-8"><title>fw global</title>
<script src="/fw/client.global.js"></script>
<script>
  const c = fw.connect('/fw/chat/lobby');
  c.onMessage((d) => (window.got = d));
  c.onStateChange((s) => { if (s === 'open') c.send('plain script'); });
</script>`;

test('Chromium: one request for the client, compressed, 304 on reload; the IIFE build works from a plain script', { skip }, async (t) => {
  const server = await serve({}, (fw) => {
    fw.handle('/chat/{room}', { message: (r, d) => void r.write(`echo:${d}`) });
    fw.route('GET', '/module', (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(MODULE_PAGE));
    fw.route('GET', '/script', (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(SCRIPT_PAGE));
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
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  const clientResponses: { url: string; status: number; encoding: string | undefined }[] = [];
  page.on('response', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith('/fw/client')) clientResponses.push({ url: path, status: r.status(), encoding: r.headers()['content-encoding'] });
  });

  await page.goto(server.url('/module'));
  await page.waitForFunction(() => (window as unknown as { got?: string }).got === 'echo:hello');
  assert.deepEqual(
    clientResponses.map((r) => [r.url, r.status]),
    [['/fw/client.js', 200]],
    'one request for the client',
  );
  assert.equal(clientResponses[0]!.encoding, 'br', 'Chromium asks for brotli and gets it');

  clientResponses.length = 0;
  await page.reload();
  await page.waitForFunction(() => (window as unknown as { got?: string }).got === 'echo:hello');
  assert.deepEqual(
    clientResponses.map((r) => [r.url, r.status]),
    [['/fw/client.js', 304]],
    'revalidated, not downloaded again',
  );

  clientResponses.length = 0;
  await page.goto(server.url('/script'));
  await page.waitForFunction(() => (window as unknown as { got?: string }).got === 'echo:plain script');
  assert.deepEqual(
    clientResponses.map((r) => [r.url, r.status]),
    [['/fw/client.global.js', 200]],
  );
});
