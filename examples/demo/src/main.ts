import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, Framework, envName, type FrameworkOptions } from '@fw/runtime';
import { configureAgentDemo, installAgentDemo } from './agent-demo.js';
import { parseDemoArgs, USAGE, UsageError } from './cli.js';
import { installAgentsRoute } from './agents-route.js';
import { installChat } from './chat/index.js';
import { installChatPage } from './chat/page.js';
import { DEMO_CONFIG } from './config.js';
import { firstRunText } from './first-run.js';
import { withDemoGovernance } from './governance.js';
import { installMcpDemo } from './mcp-demo.js';
import { installModules } from './modules.js';
import { installSimulationRoute } from './simulation/route.js';
import { Simulation } from './simulation/simulation.js';
import { installTicker } from './simulation/ticker.js';

export interface DemoOptions {
  /** Port (default `fw.port`: 8080, or `FW_PORT`); 0 picks a free one. */
  port?: number;
  /** Host (default `fw.host`: 127.0.0.1). */
  host?: string;
  /** Configuration on top of the environment and `fw.config.json` (e.g. `{'fw.admin.auth.token': …}`). */
  config?: FrameworkOptions;
  /**
   * Start the simulated traffic at once (participants, ticker, one coordinator run). `npm start`
   * asks for it; an embedding (a test) gets a quiet demo unless it asks. The operator's
   * `demo.simulation=false` wins either way; the switch (`POST /demo/simulation`) works regardless.
   */
  simulation?: boolean;
}

export interface Demo {
  url: string;
  fw: Framework;
  simulation: Simulation;
  close(): Promise<void>;
}

/** The demo app: chat rooms on the real-time runtime, the MCP server, agents and admin. */
export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const fw = new Framework(withDemoGovernance(options.config));
  fw.config.declare(DEMO_CONFIG);
  // Checked before anything listens: a bad rate fails the start, it is not corrected silently.
  const messageIntervalMs = atLeast(fw, 'demo.simulation.message-interval', MIN_MESSAGE_INTERVAL_MS);
  const tickerIntervalMs = atLeast(fw, 'demo.ticker.interval', MIN_TICKER_INTERVAL_MS);
  installChat(fw);
  installChatPage(fw);
  installTicker(fw);
  installAgentsRoute(fw);
  await installMcpDemo(fw);
  await installAgentDemo(fw);
  await installModules(fw);
  const address = await fw.listen(options.port, options.host);
  configureAgentDemo(fw);
  const url = `http://${urlHost(address.address, address.family)}:${address.port}/`;
  const simulation = new Simulation(fw, {
    baseUrl: url,
    messageIntervalMs,
    tickerIntervalMs,
  });
  installSimulationRoute(fw, simulation);
  if (options.simulation && fw.config.get('demo.simulation')) simulation.start();
  return { url, fw, simulation, close: () => fw.close() };
}

/** The simulation stays a demo, never a load generator: its rates have a floor. */
export const MIN_MESSAGE_INTERVAL_MS = 100;
export const MIN_TICKER_INTERVAL_MS = 50;

function atLeast(fw: Framework, key: 'demo.simulation.message-interval' | 'demo.ticker.interval', min: number): number {
  const value = fw.config.get(key);
  if (value < min) {
    throw new ConfigError(`${key} must be at least ${min}ms (got ${value}ms): the simulation is bounded`);
  }
  return value;
}

/**
 * What `npm start` changes from fw's defaults: the admin MCP endpoint's write tools are on, so
 * that `fw_cancel_task` can cancel the slow agent from a desktop MCP client (the admin plane stays
 * loopback-only until a credential is configured). Only when the operator did not decide:
 * `FW_ADMIN_MCP_WRITE_TOOLS` or the key in `fw.config.json` wins.
 */
function cliConfig(): FrameworkOptions {
  const key = 'fw.admin.mcp-write-tools';
  if (process.env[envName(key)] !== undefined || configFileSets(key)) return {};
  return { [key]: true };
}

function configFileSets(key: string): boolean {
  const file = resolve('fw.config.json');
  if (!existsSync(file)) return false;
  try {
    let node: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof node === 'object' && node !== null && key in node) return true;
    for (const part of key.split('.'))
      node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
    return node !== undefined;
  } catch {
    return false; // the framework reports a broken file itself
  }
}

/** A wildcard listener is reached (and printed) as loopback: the simulation's clients use it too. */
function urlHost(address: string, family: string): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '[::1]';
  return family === 'IPv6' ? `[${address}]` : address;
}

/** Where the agent state lives: `./.fw-data/fw.db` unless configured (delete it to start fresh). */
function storeLocation(fw: Framework): string {
  const store = fw.services.get('store');
  if (!store) return 'none';
  return store.kind === 'sqlite'
    ? `${relative(process.cwd(), store.location) || store.location} (kept across restarts; delete to start fresh)`
    : store.location;
}

async function main(): Promise<void> {
  const args = parseDemoArgs(process.argv.slice(2));
  if (args.help) {
    console.log(USAGE);
    return;
  }
  const demo = await startDemo({
    ...(args.port !== undefined ? { port: args.port } : {}),
    ...(args.host !== undefined ? { host: args.host } : {}),
    simulation: true,
    config: cliConfig(),
  });
  // For people: plain text on stdout, once. For log pipelines: one structured line.
  console.log(firstRunText({ url: demo.url, fw: demo.fw, store: storeLocation(demo.fw), simulation: demo.simulation.status() }));
  demo.fw.logger.child({ module: 'demo' }).info({ url: demo.url, simulation: demo.simulation.running }, 'demo started');
  let stopping = false;
  const stop = (): void => {
    if (stopping) process.exit(1);
    stopping = true;
    demo.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    // A mistake in the command line or the configuration (a busy port, a bad value) is one line
    // that says what to do; anything else is a bug and keeps its stack.
    if (err instanceof UsageError) {
      console.error(`fw demo: ${err.message}\nTry --help for the options.`);
      process.exit(2);
    }
    const code = (err as { code?: unknown }).code;
    console.error(typeof code === 'string' && err instanceof Error ? `fw demo: ${err.message}` : err);
    process.exit(1);
  });
}
