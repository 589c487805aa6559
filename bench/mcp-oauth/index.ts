/**
 * bench/mcp-oauth: what fw's OAuth resource server costs a legacy MCP session over Streamable
 * HTTP. Three endpoints in one process, measured in alternating order after a warm-up: no OAuth,
 * OAuth with the verified-token cache (`fw.mcp.oauth.token-cache`, default), and OAuth verifying
 * every request (`token-cache=0`). The authorization server is a loopback JWKS + RFC 8414
 * metadata document and an ES256 token signed with `jose`. Not a test: it prints requests/s and
 * the process's CPU time per request (client and server share the process, so the difference
 * between rows is the OAuth cost).
 *
 *   npx tsc -b bench && node bench/dist/mcp-oauth/index.js [--requests 3000] [--concurrency 8] [--rounds 3]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Framework } from '@fw/runtime';
import { mountMcpServer, ToolRegistry } from '@fw/mcp';
import { fmt, markdownTable, textTable } from '../common/table.js';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string): number => {
  const i = argv.indexOf(`--${name}`);
  return Number(i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback);
};
const REQUESTS = arg('requests', '3000');
const CONCURRENCY = arg('concurrency', '8');
const ROUNDS = arg('rounds', '3');

type Mode = 'no OAuth' | 'OAuth, token cache' | 'OAuth, no cache';
const MODES: Mode[] = ['no OAuth', 'OAuth, token cache', 'OAuth, no cache'];

// The authorization server's side: signing key, JWKS and metadata on loopback.
const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' }] };
const as = createServer((req, res) => {
  const body =
    req.url === '/jwks'
      ? jwks
      : { issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token`, response_types_supported: ['code'] };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
});
await new Promise<void>((resolve) => as.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${(as.address() as AddressInfo).port}`;

async function endpoint(mode: Mode): Promise<{ fw: Framework; url: string; token: string | undefined }> {
  const oauth: Record<string, unknown> =
    mode === 'no OAuth'
      ? {}
      : { 'fw.mcp.oauth.authorization-servers': issuer, 'fw.mcp.oauth.token-cache': mode === 'OAuth, no cache' ? 0 : 1000 };
  const fw = new Framework({ configFile: false, 'fw.log.level': 'warn', ...oauth });
  const tools = new ToolRegistry('programmatic');
  tools.registerTool({ name: 'echo', handler: (args) => String(args.text ?? '') });
  mountMcpServer(fw, { name: 'bench', path: '/mcp' }, { registries: [tools], frameworkRegistry: false });
  const url = `http://127.0.0.1:${(await fw.listen(0, '127.0.0.1')).port}/mcp`;
  const token =
    mode === 'no OAuth'
      ? undefined
      : await new SignJWT({ scope: 'mcp:use' })
          .setProtectedHeader({ alg: 'ES256', kid: 'bench' })
          .setIssuer(issuer)
          .setAudience(url)
          .setSubject('bench')
          .setIssuedAt()
          .setExpirationTime('1h')
          .sign(privateKey);
  return { fw, url, token };
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

async function session(url: string, auth: Record<string, string>): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...auth },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
    }),
  });
  await res.text();
  if (res.status !== 200) throw new Error(`initialize: HTTP ${res.status}`);
  return res.headers.get('mcp-session-id')!;
}

/** `count` tools/call over `CONCURRENCY` sessions, each request waiting for its answer. */
async function burst(url: string, token: string | undefined, count: number): Promise<{ rps: number; cpuUs: number }> {
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const sessions = await Promise.all(Array.from({ length: CONCURRENCY }, () => session(url, auth)));
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    sessions.map(async (sid) => {
      while (next < count) {
        const id = ++next;
        const res = await fetch(url, {
          method: 'POST',
          headers: { ...JSON_HEADERS, ...auth, 'mcp-session-id': sid },
          body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }),
        });
        await res.text();
        if (res.status !== 200) throw new Error(`tools/call: HTTP ${res.status}`);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { rps: count / seconds, cpuUs: (cpu.user + cpu.system) / count };
}

const servers = new Map<Mode, Awaited<ReturnType<typeof endpoint>>>();
for (const mode of MODES) servers.set(mode, await endpoint(mode));
for (const mode of MODES) await burst(servers.get(mode)!.url, servers.get(mode)!.token, Math.min(500, REQUESTS)); // warm-up

const results = new Map<Mode, { rps: number[]; cpuUs: number[] }>(MODES.map((m) => [m, { rps: [], cpuUs: [] }]));
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? MODES : [...MODES].reverse();
  for (const mode of order) {
    const s = servers.get(mode)!;
    const r = await burst(s.url, s.token, REQUESTS);
    results.get(mode)!.rps.push(r.rps);
    results.get(mode)!.cpuUs.push(r.cpuUs);
  }
}
for (const s of servers.values()) await s.fw.close();
as.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const base = median(results.get('no OAuth')!.cpuUs);
const headers = ['endpoint', 'tools/call req/s (median)', 'range', 'CPU µs/request (median)', 'vs no OAuth'];
const rows = MODES.map((m) => {
  const r = results.get(m)!;
  return [
    m,
    fmt(median(r.rps)),
    `${fmt(Math.min(...r.rps))}–${fmt(Math.max(...r.rps))}`,
    fmt(median(r.cpuUs)),
    m === 'no OAuth' ? '' : `+${fmt(median(r.cpuUs) - base)} µs`,
  ];
});
console.log(
  `bench/mcp-oauth: ${REQUESTS} legacy tools/call per run over ${CONCURRENCY} sessions, ${ROUNDS} alternating rounds, Node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(textTable(headers, rows));
console.log();
console.log(markdownTable(headers, rows));
