import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpLimits } from '../config.js';

export interface Refusal {
  status: number;
  code: string;
  detail: string;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

function isLoopbackName(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function isLoopbackAddress(addr: string | undefined): boolean {
  return !!addr && (addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.'));
}

/** `example.com:8080` → `example.com`; `[::1]:80` → `[::1]`. */
function hostname(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon > 0 ? h.slice(0, colon) : h;
}

/**
 * DNS-rebinding protection (MCP transport security): the Host must be an allowed one (a loopback
 * listener only answers loopback names unless `fw.mcp.allowed-hosts` says otherwise), and a
 * browser Origin must be same-host, loopback-to-loopback, or listed in `fw.mcp.allowed-origins`.
 */
export function checkRequestSource(req: IncomingMessage, limits: McpLimits): Refusal | undefined {
  const host = req.headers.host ?? '';
  const name = hostname(host);
  const loopbackListener = isLoopbackAddress(req.socket.localAddress);
  if (limits.allowedHosts.length > 0) {
    if (!limits.allowedHosts.includes(name) && !limits.allowedHosts.includes(host.toLowerCase())) {
      return { status: 403, code: 'mcp_host_not_allowed', detail: `Host '${host}' is not allowed (fw.mcp.allowed-hosts)` };
    }
  } else if (loopbackListener && !isLoopbackName(name)) {
    return { status: 403, code: 'mcp_host_not_allowed', detail: `Host '${host}' is not a loopback name; a loopback MCP server refuses it (DNS rebinding)` };
  }
  const origin = req.headers.origin;
  if (origin === undefined || allowedOrigin(origin, host, loopbackListener, limits)) return undefined;
  return { status: 403, code: 'mcp_origin_not_allowed', detail: `Origin '${origin}' is not allowed (fw.mcp.allowed-origins)` };
}

function allowedOrigin(origin: string, host: string, loopbackListener: boolean, limits: McpLimits): boolean {
  if (limits.allowedOrigins.includes('*') || limits.allowedOrigins.includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.host.toLowerCase() === host.toLowerCase()) return true;
  return loopbackListener && isLoopbackName(url.hostname.toLowerCase());
}

/** CORS response headers for an (already validated) Origin; the session id must be readable by browser clients. */
export function corsHeaders(req: IncomingMessage): Record<string, string> {
  const origin = req.headers.origin;
  if (!origin) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': 'Mcp-Session-Id, Mcp-Protocol-Version',
    vary: 'Origin',
  };
}

export function preflight(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(204, {
    ...corsHeaders(req),
    'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    'access-control-allow-headers': 'Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID',
    'access-control-max-age': '600',
    allow: 'GET, POST, DELETE, OPTIONS',
  });
  res.end();
}
