import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { WebSocket } from 'ws';
import { waitFor } from '@fw/testing';
import { startDemo } from '../src/main.js';

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
