import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { WebSocket } from 'ws';
import { waitFor } from '@fw/testing';
import { startDemo } from '../src/main.js';

const CHROMIUM = process.env.FW_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM}`;

test("the demo's /order tool waits for an operator: the chat shows the approval, the admin API approves it, the order goes through", async () => {
  const demo = await startDemo({ port: 0, host: '127.0.0.1' });
  const socket = new WebSocket(`${demo.url.replace(/^http/, 'ws')}fw/agent/assistant`);
  const frames: { type: string; [k: string]: unknown }[] = [];
  socket.on('message', (d) => {
    try {
      frames.push(JSON.parse(String(d)));
    } catch {
      // not a JSON frame
    }
  });
  try {
    await once(socket, 'open');
    await waitFor('the session frame', () => frames.some((f) => f.type === 'session') || undefined, 10_000);
    socket.send(JSON.stringify({ text: '/order {"item": "coffee"}' }));
    const asked = await waitFor('the approval frame', () => frames.find((f) => f.type === 'approval' && f.status === 'pending'), 10_000);
    assert.equal(asked.tool, 'order');
    assert.equal(asked.reason, 'an order spends the team budget');
    const listed = (await (await fetch(`${demo.url}api/admin/approvals?status=pending`)).json()) as {
      approvals: { id: string; arguments: unknown }[];
    };
    const pending = listed.approvals.find((a) => a.id === asked.id);
    assert.deepEqual(pending?.arguments, { item: 'coffee' });
    const decided = await fetch(`${demo.url}api/admin/approvals/${asked.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ approve: true }),
    });
    assert.equal(decided.status, 200);
    const done = await waitFor('the answer', () => frames.find((f) => f.type === 'done'), 10_000);
    assert.equal(done.text, 'Tool order returned: ordered one coffee');
  } finally {
    socket.close();
    await demo.close();
  }
});

test('the agents page shows the AG-UI interrupt while the order waits, and its resolution once an operator denies it', {
  skip,
}, async () => {
  const demo = await startDemo({ port: 0, host: '127.0.0.1' });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(20_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(demo.url);
    await page.waitForFunction(() => ((document.getElementById('agent-choice') as HTMLSelectElement | null)?.options.length ?? 0) > 0);
    await page.selectOption('#agent-choice', 'assistant');
    await page.fill('#agent-prompt', '/order {"item": "<img src=x onerror=alert(1)>"}');
    await page.click('#agent-send');
    await page.waitForFunction(() => document.getElementById('agent-transcript')?.textContent?.includes('awaits a human'));
    const listed = (await (await fetch(`${demo.url}api/admin/approvals?status=pending`)).json()) as { approvals: { id: string }[] };
    const id = listed.approvals[0]?.id;
    assert.ok(id);
    assert.ok((await page.locator('#agent-transcript').textContent())?.includes(`/api/admin/approvals/${id}`));
    const decided = await fetch(`${demo.url}api/admin/approvals/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ approve: false, reason: 'no budget left' }),
    });
    assert.equal(decided.status, 200);
    await page.waitForFunction(() => document.getElementById('agent-status')?.dataset.state === 'finished');
    const transcript = (await page.locator('#agent-transcript').textContent()) ?? '';
    assert.match(transcript, /approval denied: no budget left/);
    assert.match(transcript, /was denied by/);
    // The arguments were rendered as text, never as markup.
    assert.equal(await page.locator('#agent-transcript img').count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await demo.close();
  }
});
