/**
 * The demo app (chat rooms, its MCP server, its agents, the admin plane) started with the given
 * settings, for the identity and audit tests: REST helpers with a bearer credential, an MCP client
 * on any path, and a client on another machine played through a trusted proxy (the test is the
 * proxy: loopback is trusted, and it sends X-Forwarded-For).
 */
import { Framework } from '@fw/runtime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { installAgentDemo } from '../../src/agent-demo.js';
import { installChat } from '../../src/chat/index.js';
import { installMcpDemo } from '../../src/mcp-demo.js';
import { installModules } from '../../src/modules.js';

export const API = '/api/admin';

export interface IdentityApp {
  fw: Framework;
  base: string;
  /** The next requests come from `address` (forwarded by the trusted proxy); undefined: straight from loopback. */
  from(address: string | undefined): void;
  get(path: string, token?: string): Promise<Response>;
  send(method: string, path: string, body: unknown, token?: string): Promise<Response>;
  mcp(path: string, token?: string): Promise<Client>;
  close(): Promise<void>;
}

export async function startIdentityApp(options: Record<string, unknown> = {}): Promise<IdentityApp> {
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.ai.auto': false,
    'fw.heartbeat.interval': 0,
    'fw.security.trusted-proxies': 'loopback',
    ...options,
  });
  let forwarded: string | undefined;
  installChat(fw);
  await installMcpDemo(fw);
  await installAgentDemo(fw);
  await installModules(fw);
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  const auth = (token?: string): Record<string, string> => ({
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(forwarded ? { 'x-forwarded-for': forwarded } : {}),
  });
  const clients: Client[] = [];
  return {
    fw,
    base,
    from: (address) => {
      forwarded = address;
    },
    get: (path, token) => fetch(base + path, { headers: auth(token) }),
    send: (method, path, body, token) =>
      fetch(base + path, {
        method,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...auth(token) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    async mcp(path, token) {
      const client = new Client({ name: 'security-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(base + path), { requestInit: { headers: auth(token) } }));
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await fw.close();
    },
  };
}

/** The text of an MCP tool result. */
export function textOf(result: unknown): string {
  return (result as { content: { text: string }[] }).content.map((c) => c.text).join('');
}

export interface Audited {
  action: string;
  target: string;
  principal: string | null;
  outcome: string;
  source: string;
  reason: string | null;
  /** Refusal records: how many attempts the record stands for (they are aggregated per caller and window). */
  refusals?: { count: number; open: boolean; sources: { value: string; count: number }[] };
}
