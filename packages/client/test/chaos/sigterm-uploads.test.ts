/**
 * Chaos (issue #25): SIGTERM while uploads are in flight. The app runs in a process of its own
 * with `fw.close.signals=SIGTERM`; message POSTs whose bodies trickle in are under way when the
 * signal comes, and fw clients on every transport keep sending through the restart (a new process
 * on the same port). Audited:
 *   every POST is answered, none is cut: 204 (and taken, once) or 503 with Retry-After (and not
 *   taken); an upload that outlasts the drain gets the 503, one that fits in it completes;
 *   every `send()` of the fw clients settles; what the two processes took, they took once and in
 *   order; a resolved send was taken, a rejected one only as `send_unconfirmed`.
 * Before the fix the drain covered WebSockets only and a POST still uploading was cut.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { connect, type FwClient, type TransportName } from '../../dist/node.js';
import { waitFor } from '@fw/testing';
import { within } from '../helpers.js';

const DRAIN = 1500;

interface App {
  port: number;
  child: ChildProcess;
  taken: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startApp(port = 0): Promise<App> {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('../fixtures/drain-app.js', import.meta.url)), String(port), String(DRAIN)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const taken: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let rest = '';
  const ready = new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('READY ')) resolve(Number(line.slice(6)));
        else if (line.startsWith('TAKEN ')) taken.push(JSON.parse(line.slice(6)) as string);
      }
    });
    child.once('exit', () => reject(new Error('the app exited before it was ready')));
  });
  return { port: await ready, child, taken, exited };
}

interface Answer {
  status?: number;
  retryAfter?: string;
  error?: string;
}

/** A message POST on a connection of its own whose body arrives in `parts` parts, `gap` ms apart. */
function trickle(port: number, uuid: string, body: string, parts: number, gap: number): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: `/fw/in/room?tracking=${uuid}`,
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, retryAfter: res.headers['retry-after'] as string | undefined }));
    });
    // An error after the answer (the rest of the body refused) is not a cut: the answer came.
    req.on('error', (e: NodeJS.ErrnoException) => !answered && resolve({ error: e.code ?? e.message }));
    const size = Math.ceil(body.length / parts);
    let i = 0;
    const next = (): void => {
      if (req.destroyed || answered) return;
      const part = body.slice(i * size, (i + 1) * size);
      i++;
      if (i >= parts) req.end(part);
      else {
        req.write(part);
        setTimeout(next, gap);
      }
    };
    next();
  });
}

test('SIGTERM with uploads in flight: every POST answered (completed, or 503 + Retry-After), nothing cut; fw clients repeat nothing and lose nothing unsaid', async (t) => {
  let app = await startApp();
  const port = app.port;
  const clients = new Map<TransportName, FwClient>();
  t.after(async () => {
    for (const c of clients.values()) c.close();
    app.child.kill('SIGKILL');
  });
  // A resource for the raw uploads (an SSE stream whose messages nobody reads).
  const stream = await fetch(`http://127.0.0.1:${port}/fw/in/room?fw=1&transport=sse`);
  const reader = stream.body!.getReader();
  const hs = JSON.parse(new TextDecoder().decode((await reader.read()).value).replace(/^data: /, '')) as { uuid: string };

  // fw clients keep sending through the restart.
  const outcomes = new Map<TransportName, Promise<string>[]>();
  for (const transport of ['websocket', 'sse', 'long-polling', 'streaming'] as TransportName[]) {
    const client = connect(`http://127.0.0.1:${port}/fw/in/room`, { transports: [transport], reconnect: { minDelay: 50, maxDelay: 200 } });
    clients.set(transport, client);
    outcomes.set(transport, []);
  }
  await waitFor('the fw clients open', () => [...clients.values()].every((c) => c.state === 'open'));
  let sending = true;
  const sender = (async () => {
    for (let i = 0; sending; i++) {
      for (const [transport, client] of clients) {
        outcomes.get(transport)!.push(
          client.send(`${transport} ${i}`).then(
            () => 'taken',
            (e: { code?: string }) => e.code ?? 'error',
          ),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();

  // Uploads: quick ones that fit in the drain, slow ones that outlast it; SIGTERM while they run.
  const uploads: { body: string; answer: Promise<Answer>; slow: boolean }[] = [];
  for (let i = 0; i < 12; i++) {
    const slow = i % 3 === 0;
    const body = `upload ${i} ${'x'.repeat(4000)}`;
    uploads.push({ body, slow, answer: trickle(port, hs.uuid, body, 6, slow ? 700 : 120) });
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  await new Promise((resolve) => setTimeout(resolve, 150));
  const first = app;
  first.child.kill('SIGTERM');
  const answers = await within<Answer[]>(
    20_000,
    'every upload answered',
    (resolve) => void Promise.all(uploads.map((u) => u.answer)).then(resolve),
  );
  assert.deepEqual(await first.exited, { code: null, signal: 'SIGTERM' }, 'drained, then ended by the signal');
  app = await startApp(port);
  await waitFor('the fw clients back', () => [...clients.values()].every((c) => c.state === 'open'), 15_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
  sending = false;
  await sender;

  // Every upload answered, none cut; 204 = taken once, 503 (+ Retry-After) = not taken.
  for (const [i, u] of uploads.entries()) {
    const a = answers[i]!;
    assert.equal(a.error, undefined, `upload ${i} was cut: ${a.error}`);
    assert.ok(a.status === 204 || a.status === 503, `upload ${i}: ${a.status}`);
    const times = first.taken.filter((m) => m === u.body).length;
    if (a.status === 204) assert.equal(times, 1, `upload ${i} answered 204 but taken ${times} times`);
    else {
      assert.equal(a.retryAfter, '2', `upload ${i}: 503 without Retry-After`);
      assert.equal(times, 0, `upload ${i} answered 503 but taken`);
    }
  }
  assert.ok(
    uploads.some((u, i) => !u.slow && answers[i]!.status === 204),
    'an upload that fits in the drain completes',
  );
  assert.ok(
    uploads.every((u, i) => !u.slow || answers[i]!.status === 503),
    'an upload that outlasts the drain gets the 503',
  );

  // fw clients: every send settled; taken once, in order, across the two processes.
  for (const [transport, list] of outcomes) {
    const settled = await within<string[]>(30_000, `${transport}: every send() settled`, (resolve) => void Promise.all(list).then(resolve));
    await waitFor(`${transport}: what was confirmed reached the log`, () =>
      settled.every((s, i) => s !== 'taken' || [...first.taken, ...app.taken].includes(`${transport} ${i}`)),
    );
    const taken = [...first.taken, ...app.taken].filter((m) => m.startsWith(`${transport} `)).map((m) => Number(m.split(' ')[1]));
    assert.equal(new Set(taken).size, taken.length, `${transport}: taken twice: ${taken.join(',')}`);
    assert.deepEqual(
      taken,
      [...taken].sort((a, b) => a - b),
      `${transport}: out of order`,
    );
    for (const [i, s] of settled.entries()) {
      if (s === 'taken') assert.ok(taken.includes(i), `${transport} ${i} resolved but never taken`);
      else assert.equal(s, 'send_unconfirmed', `${transport} ${i}: ${s}`);
    }
    t.diagnostic(
      `${transport}: ${settled.length} sent, ${settled.filter((s) => s === 'taken').length} confirmed, ` +
        `taken ${taken.length} (${first.taken.filter((m) => m.startsWith(`${transport} `)).length} before the restart)`,
    );
  }
  t.diagnostic(
    `uploads: ${answers.filter((a) => a.status === 204).length} completed, ${answers.filter((a) => a.status === 503).length} answered 503`,
  );
  app.child.kill('SIGTERM');
  await app.exited;
});
