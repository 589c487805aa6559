/**
 * One node of the cluster: a chat endpoint (every transport) and an MCP endpoint, in cluster mode
 * over Redis so a broadcast on any node reaches the clients of every node.
 *
 *   node dist/src/node.js <port> <node-name> [redis-url] [prefix]
 */
import { Framework } from '@fw/runtime';
import { cluster } from '@fw/redis';
import { McpParam, McpServer, McpTool, mcp, mountMcpServer } from '@fw/mcp';

@McpServer({ name: 'cluster-tools', version: '1.0.0', path: '/mcp' })
class ClusterTools {
  constructor(
    private readonly fw: Framework,
    private readonly node: string,
  ) {}

  @McpTool({ name: 'post_message', description: 'Posts into a chat room (every node delivers it)' })
  post(
    @McpParam({ name: 'room', description: 'Room name', type: 'string' }) room: string,
    @McpParam({ name: 'text', description: 'Message', type: 'string' }) text: string,
  ) {
    this.fw.broadcasters.lookup(`/fw/chat/${room}`, true).broadcast({ text, via: this.node });
    return { room, node: this.node };
  }
}

export async function startNode(port: number, node: string, redisUrl: string, prefix: string): Promise<Framework> {
  const fw = new Framework({
    'fw.cluster.redis-url': redisUrl,
    'fw.cluster.prefix': prefix,
    'fw.cluster.node-id': node,
    // Behind nginx on this host: believe its X-Forwarded-For (the client's address, for logs and limits).
    'fw.security.trusted-proxies': 'loopback',
    // Drain on SIGTERM: clients get 1012 / a reconnect frame and fail over to the other nodes.
    'fw.close.signals': 'SIGTERM,SIGINT',
  });
  fw.handle('/chat/{room}', {});
  await fw.use(mcp());
  await fw.use(cluster());
  mountMcpServer(fw, new ClusterTools(fw, node));
  await fw.listen(port, '127.0.0.1');
  return fw;
}

if (process.argv[1]?.endsWith('node.js') && process.argv[2]) {
  const [port, node, redisUrl = 'redis://127.0.0.1:6379', prefix = 'fw-example-cluster'] = process.argv.slice(2);
  await startNode(Number(port), node ?? 'node', redisUrl, prefix);
  process.send?.('ready');
}
