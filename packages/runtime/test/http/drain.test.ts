/**
 * Shutdown drains HTTP too (issue #25): a request in flight when `close()` begins, an upload
 * included, is answered: it finishes (and a message POST is taken by its resource, still there),
 * or, still unanswered after `fw.close.drain-timeout`, it gets 503 `shutting_down` with
 * Retry-After and is not taken; a new request gets the 503 at once. Nothing is cut. Real uploads
 * over node:http whose bodies arrive in parts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { openStream, startFw, type Running } from '../helpers.js';
import { waitFor } from '@fw/testing';

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/** A POST whose body is written by the test, part by part; `answer` settles with the response (or the socket error). */
function upload(url: string, length: number): { write(part: string): void; end(part?: string): void; answer: Promise<Answer> } {
  const req = request(url, { method: 'POST', headers: { 'content-type': 'text/plain', 'content-length': length } });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body }));
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  return { write: (part) => req.write(part), end: (part) => req.end(part), answer };
}

async function chat(
  options: Record<string, unknown>,
): Promise<{ app: Running; taken: string[]; uuid: string; stream: Awaited<ReturnType<typeof openStream>> }> {
  const taken: string[] = [];
  const app = await startFw(options, (fw) => fw.handle('/in', { message: (_r, data) => void taken.push(data) }));
  const stream = await openStream(`${app.base}/fw/in?fw=1`, true);
  const hs = JSON.parse((await stream.events.next()).data) as { uuid: string };
  return { app, taken, uuid: hs.uuid, stream };
}

test('an upload in flight when close() begins finishes and is taken; a new request meanwhile gets 503 + Retry-After', async () => {
  const { app, taken, uuid, stream } = await chat({ 'fw.close.drain-timeout': 5000 });
  const body = 'x'.repeat(2000);
  const up = upload(`${app.base}/fw/in?tracking=${uuid}&seq=1`, body.length);
  up.write(body.slice(0, 1000));
  await waitFor('the request in flight', () => app.fw.requests.unanswered().length === 1);
  assert.equal(app.fw.requests.size, 1, 'the open SSE stream is not tracked, only the upload');
  const closing = app.fw.close();
  const refused = await fetch(`${app.base}/fw/in?tracking=${uuid}&seq=2`, { method: 'POST', body: 'new' });
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get('retry-after'), '5');
  assert.equal(((await refused.json()) as { code: string }).code, 'shutting_down');
  up.end(body.slice(1000));
  const answer = await up.answer;
  assert.equal(answer.status, 204);
  assert.deepEqual(taken, [body], 'taken by its resource, which was still there');
  await closing;
  // Then the streams ended as a drop (a reconnect frame), after the upload was answered. (On Bun
  // the stream's last bytes may reach the client just after close() resolves: read to its end.)
  await stream.ended;
  const frames: string[] = [];
  while (stream.events.length > 0) frames.push((await stream.events.next()).data);
  assert.match(frames.at(-1) ?? '', /"t":"reconnect"/);
});

test('an upload still unfinished at fw.close.drain-timeout gets 503 + Retry-After, is not taken, and its connection is not cut', async () => {
  const { app, taken, uuid } = await chat({ 'fw.close.drain-timeout': 300 });
  const body = 'y'.repeat(2000);
  const up = upload(`${app.base}/fw/in?tracking=${uuid}&seq=1`, body.length);
  up.write(body.slice(0, 500));
  await waitFor('the request in flight', () => app.fw.requests.unanswered().length === 1);
  const started = Date.now();
  const closing = app.fw.close();
  const answer = await up.answer;
  assert.equal(answer.status, 503);
  assert.equal(answer.retryAfter, '1');
  assert.equal((JSON.parse(answer.body) as { code: string }).code, 'shutting_down');
  assert.ok(Date.now() - started >= 250, 'answered at the drain deadline, not at once');
  // The client may still finish its upload (the server reads and discards it): not a reset.
  up.end(body.slice(500));
  await closing;
  assert.deepEqual(taken, [], 'answered 503: not taken, so the client may send it again');
});

test('a held long-poll does not hold up the drain: close() answers it with a reconnect frame at once', async () => {
  const app = await startFw({ 'fw.close.drain-timeout': 10_000 }, (fw) => fw.handle('/in', {}));
  const first = (await (await fetch(`${app.base}/fw/in?fw=1&transport=long-polling`)).json()) as { uuid: string }[];
  const held = fetch(`${app.base}/fw/in?fw=1&transport=long-polling&tracking=${first[0]!.uuid}&last=0`).then(
    (r) => r.json() as Promise<{ t: string }[]>,
  );
  await waitFor('the poll held', () => app.fw.resources.get(first[0]!.uuid)?.connection !== undefined);
  const started = Date.now();
  await app.fw.close();
  assert.ok(Date.now() - started < 5000, `close took ${Date.now() - started} ms`);
  assert.equal((await held).at(-1)?.t, 'reconnect');
});
