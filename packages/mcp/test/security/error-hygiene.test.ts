/**
 * Issue #25 item 8: no MCP answer reveals internal addresses or paths. A tool, a resource, a
 * prompt, a completer and a task whose work fails with a real system error (a refused connection
 * to a loopback port, a file that is not there) used to hand its message to the client
 * (`connect ECONNREFUSED 127.0.0.1:…`, `ENOENT: … '/srv/…'`); it is now logged on the server and
 * the client reads that an internal error occurred. An application's own error messages still
 * reach the client (the model reads a tool's).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, connect as tcpConnect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Framework } from '@fw/runtime';
import { waitFor } from '@fw/testing';
import { McpMessage, mountMcpServer, ToolRegistry } from '../../dist/index.js';
import { legacySession, JSON_HEADERS, modernPost, send, TASKS_EXTENSION } from './support.js';

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('system errors (ECONNREFUSED to an internal address, ENOENT on a server path) are logged, never shown: tools, tasks, resources, prompts, completions, both eras', async () => {
  const dead = await closedPort();
  const missing = '/nonexistent-fw-secret/config/database.json';
  // Real failing I/O, the way an application's handler meets it.
  const dial = () =>
    new Promise<never>((_resolve, reject) => {
      const socket = tcpConnect(dead, '127.0.0.1');
      socket.once('error', reject);
    });
  const logged: Record<string, unknown>[] = [];
  const capture = (level: string) => (fields: unknown, message?: string) => void logged.push({ level, fields, message });
  const logger = { error: capture('error'), warn: capture('warn'), info: () => undefined, debug: () => undefined, child: () => logger };
  const fw = new Framework({ configFile: false, env: {}, logger });
  const registry = new ToolRegistry('programmatic');
  registry.registerTool({ name: 'db', handler: dial });
  registry.registerTool({ name: 'file', handler: () => readFile(missing) });
  registry.registerTool({ name: 'db_task', task: { support: 'optional' }, handler: dial });
  registry.registerTool({ name: 'plain', handler: () => Promise.reject(new Error('the quota for today is used up')) });
  registry.registerResource({ uri: 'fw://config', name: 'Config', read: () => readFile(missing) });
  registry.registerPrompt({ name: 'report', handler: () => dial() });
  registry.registerPrompt({
    name: 'pick',
    params: [{ name: 'db', complete: () => dial() }],
    handler: () => [McpMessage.user('x')],
  });
  mountMcpServer(fw, { name: 'hygiene', version: '1.0.0', path: '/mcp' }, { registries: [registry] });
  const { port } = await fw.listen(0, '127.0.0.1');
  const answers: string[] = [];
  try {
    const session = await legacySession(port);
    const legacy = (method: string, params: Record<string, unknown>) =>
      send(port, 'POST', { ...JSON_HEADERS, 'mcp-session-id': session }, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
    const calls: [string, Record<string, unknown>][] = [
      ['tools/call', { name: 'db', arguments: {} }],
      ['tools/call', { name: 'file', arguments: {} }],
      ['resources/read', { uri: 'fw://config' }],
      ['prompts/get', { name: 'report', arguments: {} }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'pick' }, argument: { name: 'db', value: '' } }],
    ];
    for (const [method, params] of calls) {
      answers.push((await legacy(method, params)).text);
      answers.push((await modernPost(port, method, params)).text);
    }
    // A task that fails the same way: its result, read with tasks/get.
    const tasks = { extensions: { [TASKS_EXTENSION]: {} } };
    const created = await modernPost(port, 'tools/call', { name: 'db_task', arguments: {} }, { capabilities: tasks });
    const taskId = String(created.json().result?.taskId);
    await waitFor(
      'the task failed',
      async () => {
        const r = await modernPost(port, 'tasks/get', { taskId }, { capabilities: tasks });
        if (r.json().result?.status !== 'completed') return undefined;
        answers.push(r.text);
        return true;
      },
      10_000,
    );

    for (const text of answers) {
      assert.doesNotMatch(text, new RegExp(`127\\.0\\.0\\.1:${dead}|ECONNREFUSED|ENOENT|nonexistent-fw-secret`), text);
      assert.match(text, /an internal error occurred \(details are in the server log\)/, text);
    }
    // The operator has the details.
    const warnings = logged.filter((l) => l.level === 'warn' && /system error/.test(String(l.message)));
    assert.ok(warnings.length >= 11, `each failure was logged (${warnings.length})`);
    assert.ok(warnings.some((w) => /ECONNREFUSED/.test(String((w.fields as { err: Error }).err))));
    assert.ok(warnings.some((w) => String((w.fields as { err: Error }).err).includes(missing)));
    // An application's own message still reaches the model.
    const plain = await modernPost(port, 'tools/call', { name: 'plain', arguments: {} });
    assert.deepEqual(plain.json().result?.content, [{ type: 'text', text: "tool 'plain' failed: the quota for today is used up" }]);
    assert.equal(plain.json().result?.isError, true);
  } finally {
    await fw.close();
  }
});
