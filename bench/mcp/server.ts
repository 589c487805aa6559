/**
 * One server under test, in its own process so that the load generator never shares its CPU:
 *   node bench/dist/mcp/server.js fw    → fw's MCP endpoint (Streamable HTTP + WebSocket on /mcp)
 *   node bench/dist/mcp/server.js sdk   → the SDK's McpServer + StreamableHTTPServerTransport
 * Both expose the same `echo` tool and print `{"port": n}` once listening on 127.0.0.1.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Framework } from '@fw/runtime';
import { McpParam, McpServer as FwMcpServer, McpTool, mountMcpServer } from '@fw/mcp';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
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
        mcp.registerTool('echo', { description: 'Echoes its text', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
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

const kind = process.argv[2];
const port = kind === 'fw' ? await startFw() : kind === 'sdk' ? await startSdk() : undefined;
if (port === undefined) {
  console.error('usage: server.js fw|sdk');
  process.exit(2);
}
console.log(JSON.stringify({ port }));
