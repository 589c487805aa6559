import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Framework, ListenError, MemoryLogger } from '../../dist/index.js';

/** A TCP port held by another listener for the duration of `fn` (what a second app would hit). */
async function withBusyPort(fn: (port: number) => Promise<void>): Promise<void> {
  const holder: Server = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  try {
    await fn((holder.address() as AddressInfo).port);
  } finally {
    await new Promise<void>((r) => holder.close(() => r()));
  }
}

const listeningLines = (logger: MemoryLogger) =>
  logger.entries.filter((e) => e.level === 'info' && /^fw listening on /.test(e.message ?? ''));

test('listen() logs every fw URL it serves once, through the logger: the origin and each endpoint a module registered', async () => {
  const logger = new MemoryLogger();
  const fw = new Framework({ configFile: false, env: {}, logger });
  fw.endpoints.add('dashboard', '/fw/admin/');
  const off = fw.endpoints.add('MCP tools', '/mcp');
  fw.endpoints.add('gone', '/gone');
  off();
  fw.endpoints.add('MCP tools', '/mcp');
  const removed = fw.endpoints.add('agent weather', '/fw/agent/weather/a2a/.well-known/agent-card.json');
  removed();
  try {
    const { port } = await fw.listen(0);
    const origin = `http://127.0.0.1:${port}`;
    const lines = listeningLines(logger);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.fields.module, 'framework');
    assert.equal(lines[0]!.fields.url, `${origin}/`);
    assert.deepEqual(lines[0]!.fields.endpoints, {
      dashboard: `${origin}/fw/admin/`,
      gone: `${origin}/gone`,
      'MCP tools': `${origin}/mcp`,
    });
    assert.equal(
      lines[0]!.message,
      `fw listening on ${origin}/ — dashboard ${origin}/fw/admin/, gone ${origin}/gone, MCP tools ${origin}/mcp`,
    );
  } finally {
    await fw.close();
  }
  assert.equal(listeningLines(logger).length, 1, 'closing does not announce again');
});

test('an attached server is announced when it starts listening, or at once if it already does; fw.public-url is what is shown', async () => {
  const logger = new MemoryLogger();
  const fw = new Framework({ configFile: false, env: {}, logger, 'fw.public-url': 'https://app.example.com' });
  fw.endpoints.add('dashboard', '/fw/admin/');
  const before = createHttpServer();
  const after = createHttpServer();
  await new Promise<void>((r) => after.listen(0, '127.0.0.1', r));
  try {
    fw.attach(before);
    assert.equal(listeningLines(logger).length, 0, 'not listening yet');
    await new Promise<void>((r) => before.listen(0, '127.0.0.1', r));
    fw.attach(after);
    const lines = listeningLines(logger);
    assert.equal(lines.length, 2);
    for (const line of lines) {
      assert.equal(line.message, 'fw listening on https://app.example.com/ — dashboard https://app.example.com/fw/admin/');
    }
  } finally {
    await fw.close();
    before.close();
    after.close();
  }
});

test('listen() reads FW_PORT (else PORT) only when no port is given; a port given is used as is', async () => {
  await withBusyPort(async (busy) => {
    // FW_PORT names a busy port: listen(0) does not read it, so it succeeds.
    const fw = new Framework({ configFile: false, env: { FW_PORT: String(busy), PORT: String(busy) }, logger: new MemoryLogger() });
    try {
      const { port } = await fw.listen(0);
      assert.notEqual(port, busy);
    } finally {
      await fw.close();
    }
  });
  const fromEnv = new Framework({ configFile: false, env: { FW_PORT: '0', PORT: '1' }, logger: new MemoryLogger() });
  try {
    // FW_PORT=0 wins over PORT=1 (which would be refused): any free port.
    assert.ok((await fromEnv.listen()).port > 1);
  } finally {
    await fromEnv.close();
  }
});

test('a busy port is one ListenError saying where the port came from and what to do; the framework can listen again', async () => {
  await withBusyPort(async (busy) => {
    const logger = new MemoryLogger();
    const fw = new Framework({ configFile: false, env: { FW_PORT: String(busy) }, logger });
    try {
      await assert.rejects(fw.listen(), (err: unknown) => {
        assert.ok(err instanceof ListenError);
        assert.equal(err.code, 'port_in_use');
        assert.equal(
          err.message,
          `cannot listen on 127.0.0.1:${busy} (fw.port, from the environment variable FW_PORT): the port is already in use. Stop the process that holds it, or set FW_PORT=${busy + 1} (or PORT), or 0 for any free port`,
        );
        assert.ok(!err.message.includes('\n'));
        return true;
      });
      await assert.rejects(fw.listen(busy), {
        message: `cannot listen on 127.0.0.1:${busy} (the port given to listen()): the port is already in use. Stop the process that holds it, or pass another port to listen(), or none so that FW_PORT / PORT decide (FW_PORT=${busy + 1})`,
      });
      assert.equal(listeningLines(logger).length, 0);
      // Nothing half-attached is left behind: the next listen works and is announced once.
      const { port } = await fw.listen(0);
      const res = await fetch(`http://127.0.0.1:${port}/fw/health`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
      assert.equal(listeningLines(logger).length, 1);
    } finally {
      await fw.close();
    }
  });
});
