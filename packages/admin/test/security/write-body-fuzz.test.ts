/**
 * Attack: malformed bodies on the admin write endpoints (issue #25, item 8). A bounded, seeded
 * fuzz: 20,000+ requests with JSON of every shape (null, arrays, wrong types at every level,
 * prototype keys, huge numbers, deep nesting, control characters), broken JSON, other content
 * types and odd path parameters, each sent over real HTTP to every admin write route. Every
 * answer must be a 2xx or a 4xx problem+json naming what was wrong: never a 5xx, and no internal
 * path, address or stack trace in any body. The seed is printed on failure; FW_FUZZ_SEED replays it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { API, AUTH_TOKENS, bearer, chatMember, startAdmin, TOKENS, type AdminApp } from './helpers.js';
import { seededRandom } from '@fw/testing';

const SEED = Number(process.env.FW_FUZZ_SEED ?? 0x5eed_a11);

/** A generator of hostile JSON values and bodies, bounded in depth and size. */
class Fuzz {
  constructor(readonly random: () => number) {}

  int(n: number): number {
    return Math.floor(this.random() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  string(): string {
    return this.pick([
      () => '',
      () => 'x',
      () => '/fw/chat/lobby',
      () => '/fw/admin/events',
      () => '*',
      () => '../../etc/passwd',
      () => '%00%2e%2e',
      () => '\u0000\u0001\u001f',
      () => '\ud800',
      () => 'é🎉\u2028\u2029',
      () => '<script>alert(1)</script>',
      () => 'a'.repeat(1 + this.int(5000)),
      () => String(this.random()),
      () => '__proto__',
      () => 'constructor',
    ])();
  }

  number(): number {
    return this.pick([0, -0, 1, -1, 1.5, 2 ** 53, -(2 ** 53), 1e308, -1e308, 5e-324, this.random() * 1e6]);
  }

  value(depth = 0): unknown {
    const kinds = depth > 4 ? ['null', 'bool', 'num', 'str'] : ['null', 'bool', 'num', 'str', 'arr', 'obj'];
    switch (this.pick(kinds)) {
      case 'null':
        return null;
      case 'bool':
        return this.random() < 0.5;
      case 'num':
        return this.number();
      case 'str':
        return this.string();
      case 'arr':
        return Array.from({ length: this.int(4) }, () => this.value(depth + 1));
      default:
        return this.object(depth + 1);
    }
  }

  object(depth = 0, wanted: readonly string[] = []): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const keys = [
      ...wanted.filter(() => this.random() < 0.8),
      ...Array.from({ length: this.int(3) }, () => this.pick(['x', '__proto__', 'constructor', 'prototype', this.string()])),
    ];
    for (const k of keys) Object.defineProperty(out, k, { value: this.value(depth), enumerable: true, writable: true, configurable: true });
    return out;
  }

  /** A body for a route whose members are `wanted`: JSON of any shape, broken JSON, or nothing. */
  body(wanted: readonly string[]): string | undefined {
    switch (this.int(10)) {
      case 0:
        return undefined;
      case 1:
        return this.pick(['{', '{"a":', '[1,', 'nul', '"unterminated', '{"a":1}}', '\ufeff{}', '{"a":1,}', '{a:1}', 'NaN', '1e999']);
      case 2:
        return `${'['.repeat(2 + this.int(200))}${']'.repeat(this.int(200))}`;
      case 3:
        return JSON.stringify(this.value());
      default:
        return JSON.stringify(this.object(0, wanted));
    }
  }

  contentType(): string | undefined {
    return this.pick([
      'application/json',
      'application/json',
      'application/json',
      'application/json; charset=utf-8',
      'application/merge-patch+json',
      'text/plain',
      'application/x-www-form-urlencoded',
      undefined,
    ]);
  }

  /** A path parameter: plain, encoded, broken percent-encoding, very long. */
  param(): string {
    return this.pick([
      () => {
        const s = this.string();
        // A lone surrogate cannot be percent-encoded as UTF-8: send its (invalid) UTF-8 bytes instead.
        return /[\ud800-\udfff]/.test(s) ? '%ED%A0%80' : encodeURIComponent(s);
      },
      () => 'u1',
      () => '%',
      () => '%E0%A4%A',
      () => '%ZZ',
      () => '%2F%2e%2e',
      () => 'a'.repeat(1 + this.int(3000)),
    ])();
  }
}

interface Answer {
  status: number;
  type: string;
  body: string;
}

function send(
  app: AdminApp,
  agent: Agent,
  method: string,
  path: string,
  body: string | undefined,
  headers: Record<string, string>,
): Promise<Answer> {
  const { port } = new URL(app.base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** What no answer may contain: a stack trace, a file path of this machine, an internal error. */
const LEAKS = [/\n\s+at /, /\/work\//, /\/home\//, /node_modules/, /node:internal/, /\.js:\d+/, /internal_error/];

/** The write routes, each with the body members it reads. */
const ROUTES: readonly { method: string; path: (f: Fuzz) => string; wanted: readonly string[] }[] = [
  { method: 'POST', path: () => `${API}/broadcasters/broadcast`, wanted: ['broadcasterId', 'message'] },
  { method: 'DELETE', path: (f) => `${API}/broadcasters/${f.param()}`, wanted: [] },
  { method: 'DELETE', path: (f) => `${API}/resources/${f.param()}${f.random() < 0.3 ? `?reason=${f.param()}` : ''}`, wanted: ['reason'] },
  { method: 'POST', path: (f) => `${API}/resources/${f.param()}/message`, wanted: ['message'] },
  { method: 'POST', path: (f) => `${API}/tasks/${f.param()}/cancel${f.random() < 0.3 ? `?reason=${f.param()}` : ''}`, wanted: ['reason'] },
  { method: 'POST', path: () => `${API}/credentials/revoke`, wanted: ['principal'] },
];

async function fuzz(app: AdminApp, cases: number, seed: number, auth: Record<string, string>): Promise<Map<number, number>> {
  const f = new Fuzz(seededRandom(seed));
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const statuses = new Map<number, number>();
  const planned = Array.from({ length: cases }, (_, i) => {
    const route = ROUTES[i % ROUTES.length]!;
    const type = f.contentType();
    return {
      i,
      method: route.method,
      path: route.path(f),
      body: f.body(route.wanted),
      headers: { ...auth, ...(type ? { 'content-type': type } : {}) },
    };
  });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < planned.length) {
      const c = planned[next++]!;
      const a = await send(app, agent, c.method, c.path, c.body, c.headers);
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      const what = `seed ${seed} case ${c.i}: ${c.method} ${c.path.slice(0, 200)} ${String(c.body).slice(0, 200)}`;
      assert.ok(a.status < 500, `${what} → ${a.status} ${a.body.slice(0, 300)}`);
      for (const leak of LEAKS) assert.doesNotMatch(a.body, leak, `${what} leaks: ${a.body.slice(0, 300)}`);
      if (a.status >= 400) {
        assert.match(a.type, /^application\/problem\+json/, `${what}: ${a.status} is not problem+json`);
        const p = JSON.parse(a.body) as { status: number; code: string; detail?: string };
        assert.equal(p.status, a.status, what);
        assert.equal(typeof p.code, 'string', what);
        if (a.status === 400) assert.ok(p.detail, `${what}: a 400 says what was wrong`);
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  agent.destroy();
  return statuses;
}

test('fuzz: 20,000 malformed write requests with fw.auth.tokens (admin) and by default answer 2xx or 4xx problem+json, never 5xx, never a leak', {
  timeout: 170_000,
}, async (t) => {
  const started = Date.now();
  const app = await startAdmin({ 'fw.auth.tokens': AUTH_TOKENS });
  const plain = await startAdmin();
  const members = [await chatMember(app, 'lobby'), await chatMember(plain, 'lobby')];
  try {
    const withTokens = await fuzz(app, 12_000, SEED, bearer(TOKENS.admin));
    const byDefault = await fuzz(plain, 8_000, SEED + 1, {});
    const all = [...withTokens, ...byDefault].reduce((n, [, c]) => n + c, 0);
    assert.equal(all, 20_000);
    // The cases reached every kind of answer, not only the first refusal.
    for (const statuses of [withTokens, byDefault]) {
      for (const status of [400, 404, 415]) assert.ok((statuses.get(status) ?? 0) > 0, `some ${status}: ${[...statuses]}`);
    }
    // And the log survived it: the malformed attempts are a handful of aggregated records.
    const refusals = await app.audit('class=refusal', TOKENS.admin);
    assert.ok(refusals.length < 100, `${refusals.length} refusal records`);
    t.diagnostic(
      `fuzz: 20,000 cases in ${Date.now() - started} ms; with tokens ${JSON.stringify([...withTokens])}, default ${JSON.stringify([...byDefault])}`,
    );
  } finally {
    for (const m of members) await m.close();
    await app.close();
    await plain.close();
  }
});
