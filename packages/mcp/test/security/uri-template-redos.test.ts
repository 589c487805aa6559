/**
 * Issue #24: one `resources/read` blocked the event loop for everyone. `notes://{owner}.{name}`
 * compiled to a backtracking RegExp that is O(n²) on a URI of dots with a bad tail (6.3 s for
 * 120 KB), `{a}{b}{c}{d}` to one that is O(n⁴) (7 s for 400 characters). Templates now compile to
 * a linear-time matcher, and a URI longer than `fw.mcp.max-uri-length` is refused before any
 * matching. Each test measures how late a 5 ms timer fires while the attack runs (the server is in
 * this process, so its blocking shows here), in both eras, over HTTP and WebSocket.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UriTemplate } from '../../dist/uri-template.js';
import { CONFIGS, loopLag, modernMeta, modernPost, openSocket, startServer } from './support.js';

/**
 * A blocked loop shows seconds here (6–12 s on the old matcher); a healthy one a few milliseconds.
 * The bound is far from both, so a loaded CI machine cannot fail it and the old code cannot pass it.
 */
const MAX_LAG_MS = 1000;
/** The old matcher passed a second at 256 characters on `{a}{b}{c}{d}` and grew as n⁴ from there. */
const MAX_MATCH_MS = 2000;

const notesAttack = (length: number) => `notes://${'.'.repeat(length - 'notes://'.length - 1)}/`;
const gridAttack = (length: number) => `fw://grid/${'a'.repeat(length - 'fw://grid/'.length - 1)}/`;

test('UriTemplate.match is linear: attack URIs from 64 characters to 120 KB each match within 2 s (the old matcher: a second at 256 characters)', () => {
  // Doubling sizes: the old matcher fails early (the O(n⁴) template passes a second at 256
  // characters), long before the sizes that would block it for minutes.
  const notes = new UriTemplate('notes://{owner}.{name}');
  const grid = new UriTemplate('fw://grid/{a}{b}{c}{d}');
  for (let length = 64; length <= 128 * 1024; length *= 2) {
    for (const [template, uri] of [
      [grid, gridAttack(length)],
      [notes, notesAttack(length)],
    ] as const) {
      const started = performance.now();
      assert.equal(template.match(uri), undefined);
      const took = performance.now() - started;
      assert.ok(took < MAX_MATCH_MS, `${template.template} on ${length} characters took ${took.toFixed(0)} ms`);
    }
  }
  // And the 120 KB URIs of the issue, which must still match when they fit the template.
  const long = `notes://alice.${'n'.repeat(120 * 1024)}`;
  assert.deepEqual(Object.keys(notes.match(long) ?? {}), ['owner', 'name']);
});

for (const config of CONFIGS) {
  test(`${config.name}: a 120 KB resources/read is refused before matching (-32602 naming fw.mcp.max-uri-length), the loop never blocks: legacy HTTP (SDK client), WebSocket both eras`, async () => {
    const server = await startServer(config.options);
    const token = config.tokens.alice;
    const client = new Client({ name: 'redos', version: '1.0.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
        }),
      );
      for (const uri of [notesAttack(120 * 1024), gridAttack(120 * 1024)]) {
        const { value, lagMs } = await loopLag(() =>
          client.readResource({ uri }).then(
            () => undefined,
            (err: { code?: number; message?: string }) => err,
          ),
        );
        assert.ok(lagMs < MAX_LAG_MS, `legacy HTTP: the loop was blocked ${lagMs.toFixed(0)} ms`);
        assert.equal(value?.code, -32602);
        assert.match(
          String(value?.message),
          /params\.uri is 122880 characters long; at most 8192 are accepted \(fw\.mcp\.max-uri-length\)/,
        );
      }

      const socket = await openSocket(server.port, token);
      try {
        const init = await socket.ask({
          jsonrpc: '2.0',
          id: 'init',
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ws', version: '0' } },
        });
        assert.ok(init.result);
        let id = 0;
        for (const uri of [notesAttack(120 * 1024), gridAttack(120 * 1024)]) {
          const { value, lagMs } = await loopLag(() => socket.ask({ jsonrpc: '2.0', id: ++id, method: 'resources/read', params: { uri } }));
          assert.ok(lagMs < MAX_LAG_MS, `legacy WebSocket: the loop was blocked ${lagMs.toFixed(0)} ms`);
          assert.equal(value.error?.code, -32602);
          assert.match(String(value.error?.message), /fw\.mcp\.max-uri-length/);
        }
      } finally {
        socket.close();
      }
      // 2026-07-28 on a socket (no Mcp-Name header there to bound the URI).
      const modern = await openSocket(server.port, token);
      try {
        let id = 0;
        for (const uri of [notesAttack(120 * 1024), gridAttack(120 * 1024)]) {
          const { value, lagMs } = await loopLag(() =>
            modern.ask({ jsonrpc: '2.0', id: ++id, method: 'resources/read', params: { uri, _meta: modernMeta() } }),
          );
          assert.ok(lagMs < MAX_LAG_MS, `modern WebSocket: the loop was blocked ${lagMs.toFixed(0)} ms`);
          assert.equal(value.error?.code, -32602);
          assert.match(String(value.error?.message), /fw\.mcp\.max-uri-length/);
        }
      } finally {
        modern.close();
      }
    } finally {
      await client.close();
      await server.close();
    }
  });
}

test('fw.mcp.max-uri-length at its edge: 8192 characters are matched (quickly, even the attack shapes), 8193 are refused; a smaller setting applies', async () => {
  const server = await startServer();
  try {
    // A matching URI of exactly 8192 characters is read; one more character is refused.
    const at = `notes://alice.${'n'.repeat(8192 - 'notes://alice.'.length)}`;
    assert.equal(at.length, 8192);
    const read = await modernPost(server.port, 'resources/read', { uri: at });
    assert.equal(read.status, 200);
    const contents = (read.json().result?.contents ?? []) as { text: string }[];
    assert.match(String(contents[0]?.text), /^note n+ of alice$/);
    const over = await modernPost(server.port, 'resources/read', { uri: `${at}n` });
    assert.equal(over.json().error?.code, -32602);
    assert.match(String(over.json().error?.message), /8193 characters long; at most 8192 are accepted \(fw\.mcp\.max-uri-length\)/);
    // The attack shapes at the largest accepted length: matched (no match) without blocking the loop.
    for (const uri of [notesAttack(8192), gridAttack(8192)]) {
      const { value, lagMs } = await loopLag(() => modernPost(server.port, 'resources/read', { uri }));
      assert.ok(lagMs < MAX_LAG_MS, `the loop was blocked ${lagMs.toFixed(0)} ms by ${uri.slice(0, 12)}…`);
      assert.equal(value.json().error?.code, -32602);
      assert.match(String(value.json().error?.message), /resource not found/);
    }
  } finally {
    await server.close();
  }
  const small = await startServer({ 'fw.mcp.max-uri-length': 20 });
  try {
    assert.equal((await modernPost(small.port, 'resources/read', { uri: 'notes://alice.x12345' })).status, 200, '20 characters');
    const refused = await modernPost(small.port, 'resources/read', { uri: 'notes://alice.x123456' });
    assert.match(String(refused.json().error?.message), /21 characters long; at most 20 are accepted/);
  } finally {
    await small.close();
  }
});
