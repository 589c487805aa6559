import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Framework, type FrameworkOptions } from '@fw/runtime';
import type { FwStore } from '@fw/store';
import { installAgentDemo } from './agent-demo.js';
import { installChat } from './chat/index.js';
import { installChatPage } from './chat/page.js';
import { installMcpDemo } from './mcp-demo.js';

export interface DemoOptions {
  /** Port (default `fw.port`: 8080, or `FW_PORT`); 0 picks a free one. */
  port?: number;
  /** Host (default `fw.host`: 127.0.0.1). */
  host?: string;
  /** Configuration on top of the environment and `fw.config.json` (e.g. `{'fw.admin.auth.token': …}`). */
  config?: FrameworkOptions;
}

export interface Demo {
  url: string;
  fw: Framework;
  close(): Promise<void>;
}

/** The demo app: chat rooms on the real-time runtime, the MCP server, agents and admin (autoloaded). */
export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const fw = new Framework(options.config);
  installChat(fw);
  installChatPage(fw);
  await installMcpDemo(fw);
  await installAgentDemo(fw);
  const address = await fw.listen(options.port, options.host);
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { url: `http://${host}:${address.port}/`, fw, close: () => fw.close() };
}

/** Where the agent state lives: `./.fw-data/fw.db` unless configured (delete it to start fresh). */
function storeLocation(fw: Framework): string {
  const store = fw.services.get<FwStore>('store');
  if (!store) return 'none';
  return store.kind === 'sqlite' ? `${relative(process.cwd(), store.location) || store.location} (kept across restarts; delete to start fresh)` : store.location;
}

function portFromArgs(argv: readonly string[]): number | undefined {
  const i = argv.findIndex((a) => a === '--port' || a.startsWith('--port='));
  if (i < 0) return undefined;
  const raw = argv[i]!.includes('=') ? argv[i]!.slice('--port='.length) : argv[i + 1];
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port needs a port number, got '${raw}'`);
  return port;
}

async function main(): Promise<void> {
  const demo = await startDemo({ port: portFromArgs(process.argv.slice(2)) });
  console.log(`fw demo running:
  chat        ${demo.url}
  admin       ${demo.url}fw/admin/
  admin mcp   ${demo.url}fw/admin/mcp
  client      ${demo.url}fw/client.js
  chat socket ${demo.url.replace(/^http/, 'ws')}fw/chat/lobby
  state       ${storeLocation(demo.fw)}
Press Ctrl+C to stop.`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) process.exit(1);
    stopping = true;
    demo.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
