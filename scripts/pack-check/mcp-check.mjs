// The MCP client side of the pack check: the official SDK, installed in a folder of its own in
// the scratch app (mcp-client/) so that its dependencies (zod, express, …) cannot stand in for
// a dependency an fw package forgot to declare.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Lists the tools at `url`; with `call`, also calls pack_check_add(2, 3) (the app's own tool). */
export async function checkMcp(url, token, call = true) {
  const client = new Client({ name: 'fw-pack-check', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  try {
    const tools = [];
    let cursor;
    for (let page = 0; page < 100; page++) {
      const listed = await client.listTools(cursor ? { cursor } : {});
      tools.push(...listed.tools.map((t) => t.name));
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    if (!call) return { tools, sum: undefined };
    const result = await client.callTool({ name: 'pack_check_add', arguments: { a: 2, b: 3 } });
    const sum = result.isError ? `error: ${JSON.stringify(result.content)}` : result.content?.[0]?.text;
    return { tools, sum };
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }
}
