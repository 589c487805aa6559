/** `npm start`: three fw nodes behind nginx on loopback; Ctrl-C stops them all. */
import { nginxInstalled, NGINX, startCluster } from './cluster.js';

if (!nginxInstalled()) {
  console.error(`nginx not found at ${NGINX} (apt-get install nginx, or set NGINX=/path/to/nginx)`);
  process.exit(1);
}
const running = await startCluster({ redisUrl: process.env.FW_CLUSTER_REDIS_URL ?? 'redis://127.0.0.1:6379' });
console.log(`three fw nodes (${running.nodes.map((n) => `${n.name} :${n.port}`).join(', ')}) behind nginx at ${running.url}`);
console.log(`  chat: ${running.url.replace('http', 'ws')}/fw/chat/lobby  (also ?transport=sse | long-polling&fw=1)`);
console.log(`  MCP:  ${running.url}/mcp`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void running.stop().then(() => process.exit(0)));
