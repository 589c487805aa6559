// The rooms' recent messages (chat/history.ts): what a page joining a room shows first and what the
// MCP server reads. Both bounds are configuration keys, tested at their edge with real fw clients.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type FwClient } from '@fw/client/node';
import { startDemo } from '../src/main.js';

async function joined(url: string): Promise<{ client: FwClient; echoes: string[] }> {
  const client = connect(url, { transports: ['websocket'] });
  const echoes: string[] = [];
  client.onMessage((d) => echoes.push(d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${url} did not open`)), 10_000);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    if (client.state === 'open') done();
    client.onStateChange((s) => s === 'open' && done());
  });
  return { client, echoes };
}

/** Sends each text and waits for the room to echo all of them (the room broadcasts to the sender too). */
async function say(room: { client: FwClient; echoes: string[] }, texts: string[]): Promise<void> {
  const before = room.echoes.length;
  for (const text of texts) room.client.send({ user: 'tester', text, at: Date.now() });
  const deadline = Date.now() + 10_000;
  while (room.echoes.length < before + texts.length) {
    if (Date.now() > deadline) throw new Error('the room did not echo the messages');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a room keeps its newest demo.rooms.history messages, and demo.rooms.max rooms (least recently active forgotten first)', async () => {
  const demo = await startDemo({ port: 0, host: '127.0.0.1', config: { configFile: false, 'demo.rooms.history': 3, 'demo.rooms.max': 2 } });
  const recent = async (room: string): Promise<string[]> =>
    ((await (await fetch(`${demo.url}demo/rooms/${room}/messages`)).json()) as { messages: { text: string }[] }).messages.map(
      (m) => m.text,
    );
  const rooms: FwClient[] = [];
  try {
    const lobby = await joined(`${demo.url}fw/chat/lobby`);
    rooms.push(lobby.client);
    await say(lobby, ['one', 'two', 'three']);
    assert.deepEqual(await recent('lobby'), ['one', 'two', 'three'], 'exactly at the limit: all kept');
    await say(lobby, ['four']);
    assert.deepEqual(await recent('lobby'), ['two', 'three', 'four'], 'one past it: the oldest goes');

    const random = await joined(`${demo.url}fw/chat/random`);
    rooms.push(random.client);
    await say(random, ['r1']);
    assert.deepEqual(await recent('lobby'), ['two', 'three', 'four'], 'two rooms: both kept');
    const help = await joined(`${demo.url}fw/chat/help`);
    rooms.push(help.client);
    await say(help, ['h1']);
    assert.deepEqual(await recent('lobby'), [], 'a third room: the least recently active (lobby) is forgotten');
    assert.deepEqual(await recent('random'), ['r1']);
    assert.deepEqual(await recent('help'), ['h1']);

    const bad = await fetch(`${demo.url}demo/rooms/NOT%20OK/messages`);
    assert.equal(bad.status, 400);
    assert.match(bad.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal(((await bad.json()) as { code: string }).code, 'invalid_room');
  } finally {
    for (const c of rooms) c.close();
    await demo.close();
  }
});
