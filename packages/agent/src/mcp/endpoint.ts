/**
 * The per-agent MCP endpoint `/fw/agent/{name}/mcp`: the agent's tool methods served through
 * @fw/mcp (Streamable HTTP and WebSocket on one path). Only agents with tools get one, so the
 * `mcp` badge means tools are really there.
 */
import { McpToolResult, ToolRegistry, mountMcpServer } from '@fw/mcp';
import { principalOwner, type Framework } from '@fw/runtime';
import type { AgentHost, MountedAgent } from '../host.js';

export function mountMcp(fw: Framework, host: AgentHost, agent: MountedAgent): (() => void)[] | undefined {
  if (agent.def.tools.length === 0) return undefined;
  const registry = new ToolRegistry('programmatic');
  // The tool's own spec, through the same `tool(name, spec, handler)` as `fw.mcp.tool`: the MCP
  // layer checks the arguments (so the host does not check them again) and shows the same schema.
  for (const tool of agent.def.tools) {
    const { name: _name, ...spec } = tool.spec;
    registry.tool(tool.name, spec, async (args, ctx) => {
      const owner = ctx.principal ? principalOwner(ctx.principal.id) : undefined;
      const out = await host.invokeTool(agent.name, tool.name, args, ctx.signal, true, owner);
      if (!out.ok) return McpToolResult.error(out.text);
      // With an output schema the value itself goes back (structuredContent, checked); otherwise the text the model would read.
      return tool.spec.output ? out.value : out.text;
    });
  }
  // An agent's endpoint serves the agent's tools only, not the process-wide registry, behind the
  // agents' authentication (every request and upgrade), or, when fw.mcp.oauth.* is set, as an
  // OAuth resource server of its own (its URL is the audience its tokens must carry).
  const mounted = mountMcpServer(
    fw,
    { name: agent.name, version: agent.def.options.version, path: `${agent.path}/mcp` },
    {
      frameworkRegistry: false,
      registries: [registry],
      principalResolver: (req) => host.auth?.check(req),
      access: async (req) => {
        await host.auth?.check(req);
      },
      oauth: true,
    },
  );
  agent.protocols.add('mcp');
  return [
    () => {
      agent.protocols.delete('mcp');
      mounted.close();
    },
  ];
}
