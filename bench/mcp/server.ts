/**
 * One server under test, in its own process so that the load generator never shares its CPU:
 *   node bench/dist/mcp/server.js fw    → fw's MCP endpoint (Streamable HTTP + WebSocket on /mcp)
 *   node bench/dist/mcp/server.js sdk   → the v1 SDK's McpServer + StreamableHTTPServerTransport (sessions, 2025)
 *   node bench/dist/mcp/server.js sdk2  → the v2 SDK's createMcpHandler (stateless 2026-07-28, JSON replies)
 * All expose the same `echo` tool and print `{"port": n}` once listening on 127.0.0.1.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Framework } from '@fw/runtime';
import { McpParam, McpServer as FwMcpServer, McpTool, mountMcpServer } from '@fw/mcp';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpHandler, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

@FwMcpServer({ name: 'bench-fw', path: '/mcp' })
class EchoServer {
  @McpTool({ name: 'echo', description: 'Echoes its text' })
  echo(@McpParam({ name: 'text', description: 'text', type: 'string' }) text: string): string {
    return text;
  }
}

async function startFw(): Promise<number> {
  const fw = new Framework({
    configFile: false,
    'fw.mcp.http-replies': 'json',
    'fw.mcp.max-inflight-requests': 10_000,
  });
  mountMcpServer(fw, EchoServer);
  return (await fw.listen(0, '127.0.0.1')).port;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined);
      } catch (err) {
        reject(err);
      }
    });
    req.on('error', reject);
  });
}

/** The SDK's documented stateful pattern: one transport (and McpServer) per session, JSON replies. */
async function startSdk(): Promise<number> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const server = createServer(async (req, res) => {
    try {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (!transport) {
        if (req.method !== 'POST' || !isInitializeRequest(body)) {
          res.writeHead(400).end('no session');
          return;
        }
        const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (id) => {
            transports.set(id, t);
          },
        });
        t.onclose = () => {
          if (t.sessionId) transports.delete(t.sessionId);
        };
        const mcp = new McpServer({ name: 'bench-sdk', version: '1.0.0' });
        mcp.registerTool('echo', { description: 'Echoes its text', inputSchema: { text: z.string() } }, async ({ text }) => ({
          content: [{ type: 'text', text }],
        }));
        await mcp.connect(t);
        transport = t;
      }
      await transport.handleRequest(req, res, body);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

/**
 * The v2 SDK's serving entry for 2026-07-28: a fresh McpServer from the factory per request,
 * JSON replies (`responseMode: 'json'`), 2025 traffic rejected (only the modern leg is measured).
 * `createMcpHandler` is fetch-shaped; on node:http it is wrapped the way `toNodeHandler` of
 * @modelcontextprotocol/node does it: the body read into a web Request, the Response written back.
 */
async function startSdk2(): Promise<number> {
  // The schema is built once, outside the per-request factory, as an application would.
  const inputSchema = z.object({ text: z.string() });
  const handler = createMcpHandler(
    () => {
      const mcp = new McpServerV2({ name: 'bench-sdk2', version: '1.0.0' });
      mcp.registerTool('echo', { description: 'Echoes its text', inputSchema }, async ({ text }) => ({
        content: [{ type: 'text', text }],
      }));
      return mcp;
    },
    { legacy: 'reject', responseMode: 'json' },
  );
  const server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
      });
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (err) {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

const kind = process.argv[2];
const port = kind === 'fw' ? await startFw() : kind === 'sdk' ? await startSdk() : kind === 'sdk2' ? await startSdk2() : undefined;
if (port === undefined) {
  console.error('usage: server.js fw|sdk|sdk2');
  process.exit(2);
}
console.log(JSON.stringify({ port }));
