/**
 * The first-run printout: what a person needs to start using the demo, printed once on stdout
 * (plain text for humans, not a log line): where the chat page, the dashboard and the MCP
 * endpoints are, each agent card, who may open the admin plane, the exact configuration that
 * connects a desktop MCP client through the stdio bridge, and what the simulation is doing.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Framework } from '@fw/runtime';
import type { SimulationStatus } from './simulation/simulation.js';

export interface FirstRunFacts {
  url: string;
  fw: Framework;
  store: string;
  simulation: SimulationStatus | undefined;
}

export function firstRunText({ url, fw, store, simulation }: FirstRunFacts): string {
  const admin = fw.services.get('admin');
  const agents = fw.services.get('agent')?.agents() ?? [];
  const at = (path: string): string => new URL(path.replace(/^\//, ''), url).href;
  const lines: string[] = ['fw demo running', ''];
  lines.push(`  chat           ${url}`);
  if (admin) {
    lines.push(`  dashboard      ${at('/fw/admin/')}`);
    lines.push(
      `  admin MCP      ${at('/fw/admin/mcp')}${admin.mcpWriteTools ? '   (write tools on: fw_cancel_task, fw_broadcast, …)' : '   (read tools only: fw.admin.mcp-write-tools=false)'}`,
    );
  }
  lines.push(`  app MCP        ${at('/mcp')}`);
  lines.push(`  client         ${at('/fw/client.js')}`);
  lines.push(`  state          ${store}`);
  if (agents.length) {
    lines.push('', '  agent cards (A2A)');
    const width = Math.max(...agents.map((a) => a.name.length));
    for (const a of agents) lines.push(`    ${a.name.padEnd(width)}  ${at(`${a.path}/a2a/.well-known/agent-card.json`)}`);
  }
  lines.push('');
  if (!admin) {
    lines.push('  admin          off (fw.admin.enabled=false)');
  } else if (admin.authRequired) {
    lines.push(
      '  admin access   needs a credential: Authorization: Bearer <token> (fw.admin.auth.token, fw.auth.tokens or a JWT; role viewer to read, operator to cancel)',
    );
  } else {
    lines.push(
      '  admin access   loopback only (127.0.0.1, ::1), no credential: set fw.admin.auth.token or fw.auth.tokens before exposing it',
    );
  }
  if (admin) {
    // Both MCP endpoints: the app's tools (rooms, posting) and the admin tools (overview, cancel, …).
    const { command, args } = bridgeCommand();
    const bridge = {
      mcpServers: {
        'fw-demo': { command, args: [...args, at('/mcp')] },
        'fw-admin': {
          command,
          args: [...args, at('/fw/admin/mcp')],
          ...(admin.authRequired ? { env: { FW_MCP_BRIDGE_TOKEN: '<your admin token>' } } : {}),
        },
      },
    };
    lines.push('', '  Desktop MCP client (e.g. Claude Desktop, claude_desktop_config.json), through the stdio bridge installed here:');
    lines.push(`    ${JSON.stringify(bridge)}`);
  }
  lines.push('');
  if (simulation?.running) {
    const rooms = [...new Set(simulation.participants.map((p) => `#${p.room}`))].join(' ');
    lines.push(
      `  simulation     on: ${simulation.participants.length} simulated participants (sim-*) in ${rooms}, ticker ${simulation.ticker.broadcaster} at ${Math.round(10_000 / simulation.ticker.intervalMs) / 10} msg/s, one coordinator run`,
    );
    lines.push(
      '                 stop it: the switch on the chat page, POST /demo/simulation {"running":false}, or DEMO_SIMULATION=false npm start',
    );
  } else {
    lines.push('  simulation     off (demo.simulation=false, or the switch on the chat page turns it on)');
  }
  const slowSeconds = Math.round(fw.config.get('demo.slow-agent.duration') / 100) / 10;
  lines.push(
    `  slow agent     "slow" works ${slowSeconds} s (demo.slow-agent.duration): start it on the chat page, cancel it there, in the dashboard (Control tab, Tasks) or with fw_cancel_task`,
    '',
    'Press Ctrl+C to stop.',
  );
  return lines.join('\n');
}

/**
 * The stdio bridge as installed with this demo: this Node and the absolute path of @fw/mcp's
 * `fw-mcp-stdio-bridge` bin, so the line works from a clone today, whatever directory the desktop
 * client starts it in (no `npx` lookup of an unpublished, or worse, unscoped name). Once @fw/mcp
 * is on the registry, `npx -p @fw/mcp fw-mcp-stdio-bridge <url>` does the same (docs/mcp.md).
 */
export function bridgeCommand(): { command: string; args: string[] } {
  const mcpDir = dirname(fileURLToPath(import.meta.resolve('@fw/mcp/package.json')));
  return { command: process.execPath, args: [join(mcpDir, 'bin', 'fw-mcp-stdio-bridge.js')] };
}
