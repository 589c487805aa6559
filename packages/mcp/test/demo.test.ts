/**
 * The demo's MCP server (examples/demo/src/mcp-demo.ts), run as the real demo process: the MCP
 * Inspector CLI lists and calls its tools, a post reaches a chat client live, and the SDK client
 * reads the room resource and the prompt. Needs the demo built (`npm test` builds everything).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect } from '@fw/client/node';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const demoMain = `${root}examples/demo/dist/src/main.js`;
const inspector = `${root}node_modules/@modelcontextprotocol/inspector/cli/build/cli.js`;

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The real demo process, without its simulated traffic (this test counts deliveries into #lobby). */
async function startDemo(): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [demoMain, '--port', '0'], {
    cwd: root,
    env: { ...process.env, FW_HOST: '127.0.0.1', DEMO_SIMULATION: 'false' },
  });
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    // A demo that never prints its URL is killed, not left running after the test fails.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`demo did not start: ${out}`));
    }, 20_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /chat\s+(http:\/\/\S+?)\/\s/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child.on('exit', (code) => reject(new Error(`demo exited with ${code}: ${out}`)));
  });
  return { child, base };
}

test('demo MCP server: the Inspector CLI lists and calls its tools; a post reaches the chat live; SDK reads and gets', {
  skip: !existsSync(demoMain) && 'demo not built',
  timeout: 60_000,
}, async () => {
  const { child, base } = await startDemo();
  const chat = connect(`${base}/fw/chat/lobby`, { transports: ['websocket'] });
  const received: string[] = [];
  chat.onMessage((d) => received.push(d));
  try {
    await new Promise<void>((resolve) => {
      if (chat.state === 'open') resolve();
      const off = chat.onStateChange((s) => {
        if (s === 'open') {
          off();
          resolve();
        }
      });
    });
    const list = await run([inspector, '--cli', `${base}/mcp`, '--transport', 'http', '--method', 'tools/list']);
    assert.equal(list.code, 0, list.stderr);
    const tools = (JSON.parse(list.stdout.slice(list.stdout.indexOf('{'))) as { tools: { name: string }[] }).tools.map((t) => t.name);
    assert.ok(tools.includes('list_rooms') && tools.includes('post_message'), tools.join(','));

    const call = await run([
      inspector,
      '--cli',
      `${base}/mcp`,
      '--transport',
      'http',
      '--method',
      'tools/call',
      '--tool-name',
      'post_message',
      '--tool-arg',
      'room=lobby',
      '--tool-arg',
      'text=hello from the inspector',
    ]);
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stdout, /\\"delivered\\":1/);
    for (let i = 0; i < 100 && !received.some((m) => m.includes('hello from the inspector')); i++)
      await new Promise((r) => setTimeout(r, 20));
    const msg = JSON.parse(received.find((m) => m.includes('hello from the inspector')) ?? '{}') as { user?: string; text?: string };
    assert.deepEqual([msg.user, msg.text], ['assistant', 'hello from the inspector'], 'the chat client got it live');

    const client = new Client({ name: 'demo-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    try {
      chat.send({ user: 'carol', text: 'hi from the page', at: 1 });
      await new Promise((r) => setTimeout(r, 100));
      const rooms = await client.callTool({ name: 'list_rooms', arguments: {} });
      assert.match(JSON.stringify(rooms.content), /lobby/);
      const room = await client.readResource({ uri: 'fw://rooms/lobby' });
      const messages = (JSON.parse(String((room.contents[0] as { text: string }).text)) as { messages: { user: string; text: string }[] })
        .messages;
      assert.deepEqual(
        messages.map((m) => m.text),
        ['hello from the inspector', 'hi from the page'],
      );
      const templates = await client.listResourceTemplates();
      assert.deepEqual(
        templates.resourceTemplates.map((t) => t.uriTemplate),
        ['fw://rooms/{roomId}'],
      );
      const prompt = await client.getPrompt({ name: 'summarize_room', arguments: { roomId: 'lobby' } });
      assert.match(JSON.stringify(prompt.messages), /carol: hi from the page/);
      await assert.rejects(client.getPrompt({ name: 'summarize_room', arguments: {} }), /missing required argument 'roomId'/);
    } finally {
      await client.close();
    }
  } finally {
    chat.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
});
