import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { WebSocket } from 'ws';
import { chromium } from 'playwright-core';
import { startDemo } from '../src/main.js';

const CHROMIUM = process.env.FW_CHROMIUM ?? '/usr/bin/chromium';
const skipBrowser = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM}`;

test('the demo serves the chat page, its assets, the client build and the room list', async () => {
  const demo = await startDemo({ port: 0, host: '127.0.0.1' });
  try {
    const page = await fetch(demo.url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /<script type="module" src="\/app.js">/);
    for (const [path, type] of [
      ['app.js', /^text\/javascript/],
      ['app.css', /^text\/css/],
      ['fw/client.js', /^text\/javascript/],
    ] as const) {
      const res = await fetch(`${demo.url}${path}`);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type') ?? '', type);
    }
    const rooms = (await (await fetch(`${demo.url}demo/rooms`)).json()) as { rooms: { name: string }[] };
    assert.deepEqual(rooms.rooms.map((r) => r.name).slice(0, 3), ['lobby', 'random', 'help']);
    const bad = await fetch(`${demo.url}fw/chat/NOT%20OK?transport=sse`);
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { code: string }).code, 'invalid_room');
  } finally {
    await demo.close();
  }
});

test('chat page in a browser: live messages both ways, the transport shown, payloads rendered as text only', {
  skip: skipBrowser,
}, async () => {
  const demo = await startDemo({ port: 0, host: '127.0.0.1' });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const peer = new WebSocket(`${demo.url.replace(/^http/, 'ws')}fw/chat/lobby`);
  try {
    const received: string[] = [];
    peer.on('message', (d) => received.push(d.toString()));
    await new Promise((r) => peer.once('open', r));
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(demo.url);
    await page.waitForFunction(() => document.getElementById('state')?.dataset.state === 'open');
    assert.equal(await page.textContent('#transport'), 'websocket');

    await page.fill('#name', 'tester');
    await page.fill('#text', 'hello from the page');
    await page.click('#composer button');
    await page.waitForFunction(() =>
      [...document.querySelectorAll('#messages li')].some((li) => li.textContent?.includes('hello from the page')),
    );
    while (received.length === 0) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual({ ...(JSON.parse(received[0]!) as object), at: 0 }, { user: 'tester', text: 'hello from the page', at: 0 });

    const evil = '<img src=x onerror="window.__pwned=1"><b>bold</b>';
    peer.send(JSON.stringify({ user: '<i>mallory</i>', text: evil, at: Date.now() }));
    peer.send(evil);
    await page.waitForFunction(
      (t) => [...document.querySelectorAll('#messages li')].filter((li) => li.textContent?.includes(t)).length === 2,
      evil,
    );
    assert.equal(await page.locator('#messages img, #messages b, #messages i').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);

    // Another transport, chosen on the page.
    await page.selectOption('#transport-choice', 'long-polling');
    await page.waitForFunction(
      () =>
        document.getElementById('transport')?.textContent === 'long-polling' && document.getElementById('state')?.dataset.state === 'open',
    );
    peer.send('via long-polling');
    await page.waitForFunction(() => [...document.querySelectorAll('#messages li')].some((li) => li.textContent === 'via long-polling'));
    await page.selectOption('#transport-choice', 'sse');
    await page.waitForFunction(
      () => document.getElementById('transport')?.textContent === 'sse' && document.getElementById('state')?.dataset.state === 'open',
    );
    assert.deepEqual(errors, []);
    await page.evaluate(() => localStorage.clear());
  } finally {
    peer.close();
    await browser.close();
    await demo.close();
  }
});

test('the demo ships a budget on the slow agent: GET governance/budgets lists it, with its state', async () => {
  const demo = await startDemo({ port: 0, host: '127.0.0.1', config: { configFile: false, 'demo.simulation': false } });
  try {
    const res = await fetch(`${demo.url}api/admin/governance/budgets`);
    assert.equal(res.status, 200);
    const { budgets } = (await res.json()) as { budgets: { id: string; scope: string; key: string; state: string; used: unknown }[] };
    const slow = budgets.find((b) => b.key === 'slow');
    assert.equal(slow?.id, 'slow-daily');
    assert.equal(slow?.scope, 'agent');
    assert.equal(slow?.state, 'ok');
    assert.deepEqual(slow?.used, { tokens: 0, usd: 0 });
  } finally {
    await demo.close();
  }
});
