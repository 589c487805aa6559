import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import { HostAllowList } from './host-allow-list.js';
import { parseHostHeader, type HostHeader } from './host-header.js';
import { normalizeIp } from './ip-address.js';
import { readJsonBody, parseJson } from './json-body.js';
import { isLoopback } from './loopback.js';
import { OriginPolicy } from './origin-policy.js';
import { recordSource, type RequestSource } from './request-source.js';
import { TrustedProxies } from './trusted-proxies.js';
import { fallbackLogger } from '../logging/default-logger.js';
import type { Logger } from '../logging/logger.js';

/** Why a request was turned away before any fw route saw it. */
export interface Refusal {
  status: number;
  code: 'host_not_allowed' | 'origin_not_allowed';
  detail: string;
}

export type RefusalListener = (req: IncomingMessage, url: URL, refusal: Refusal) => void;

export interface SecuritySettings {
  /** `fw.security.allowed-hosts`, split. */
  allowedHosts: readonly string[];
  /** `fw.security.allowed-origins`, split. */
  allowedOrigins: readonly string[];
  /** `fw.security.trusted-proxies`, split. */
  trustedProxies: readonly string[];
  /** `fw.public-url`, empty for none. */
  publicUrl: string;
  /** `fw.limits.json-depth`. */
  jsonDepth: number;
}

export interface SecurityCounters {
  /** Requests and upgrades refused for their Host (421). */
  hostRefused: number;
  /** Requests and upgrades refused for their Origin (403). */
  originRefused: number;
  /** CORS preflights answered (204 or 403). */
  preflights: number;
}

/** Response headers a browser client may read on a cross-origin response. */
const EXPOSED_HEADERS = 'Mcp-Session-Id, Mcp-Protocol-Version, X-Total-Count, X-Missing-Nodes, WWW-Authenticate, A2A-Version';
/** Request headers a preflight allows when it does not ask for specific ones. */
const DEFAULT_ALLOWED_HEADERS =
  'Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, A2A-Version, X-Fw-Admin-Client';

/**
 * fw's network surface rules in one place, built once from the configuration: the Host
 * allow-list, the Origin policy (and CORS preflights), trusted proxies, the public URL and the
 * JSON depth limit. `Framework.attach` screens every request and upgrade to an fw route with it
 * before the route runs, so no route can forget a check; the app's own routes are untouched.
 */
export class SecurityPolicy {
  readonly hosts: HostAllowList;
  readonly origins: OriginPolicy;
  readonly proxies: TrustedProxies;
  readonly publicUrl: URL | undefined;
  readonly jsonDepth: number;
  readonly counters: SecurityCounters = { hostRefused: 0, originRefused: 0, preflights: 0 };
  private readonly refusalListeners = new Set<RefusalListener>();
  /** The last Host value parsed: almost every request of a server carries the same one. */
  private lastHost: { value: string | undefined; parsed: HostHeader | undefined } = { value: undefined, parsed: undefined };

  constructor(settings: SecuritySettings) {
    this.publicUrl = parsePublicUrl(settings.publicUrl);
    this.hosts = new HostAllowList(settings.allowedHosts, this.publicUrl);
    this.origins = new OriginPolicy(settings.allowedOrigins, this.publicUrl);
    this.proxies = new TrustedProxies(settings.trustedProxies);
    if (!Number.isInteger(settings.jsonDepth) || settings.jsonDepth < 1) {
      throw new ConfigError(`fw.limits.json-depth must be a positive integer, got ${settings.jsonDepth}`);
    }
    this.jsonDepth = settings.jsonDepth;
  }

  /** Where a throwing refusal listener is reported (the framework sets its own logger). */
  log: Logger = fallbackLogger();

  static fromConfig(config: Config): SecurityPolicy {
    const list = (key: 'fw.security.allowed-hosts' | 'fw.security.allowed-origins' | 'fw.security.trusted-proxies'): string[] =>
      config
        .get(key)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    return new SecurityPolicy({
      allowedHosts: list('fw.security.allowed-hosts'),
      allowedOrigins: list('fw.security.allowed-origins'),
      trustedProxies: list('fw.security.trusted-proxies'),
      publicUrl: config.get('fw.public-url'),
      jsonDepth: config.get('fw.limits.json-depth'),
    });
  }

  /** Works out (and records for `clientAddress(req)` & co.) where the request comes from. */
  inspect(req: IncomingMessage): RequestSource {
    const peer = req.socket.remoteAddress;
    const viaProxy = this.proxies.trusts(peer);
    const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
    let source: RequestSource;
    if (!viaProxy) {
      source = {
        clientAddress: peer,
        host: req.headers.host?.toLowerCase(),
        protocol: encrypted ? 'https' : 'http',
        viaProxy,
        jsonDepth: this.jsonDepth,
      };
    } else {
      const forwardedHost = first(req.headers['x-forwarded-host']);
      const proto = first(req.headers['x-forwarded-proto'])?.toLowerCase();
      source = {
        clientAddress: this.forwardedClient(req.headers['x-forwarded-for'], peer),
        host: (forwardedHost ?? req.headers.host)?.toLowerCase(),
        protocol: proto === 'https' || proto === 'http' ? proto : encrypted ? 'https' : 'http',
        viaProxy,
        jsonDepth: this.jsonDepth,
      };
    }
    recordSource(req, source);
    return source;
  }

  /**
   * The Host and Origin checks every fw route gets (HTTP and WebSocket upgrade alike). Returns
   * the refusal to send, or undefined to go on. Records the request's source either way.
   */
  screen(req: IncomingMessage): Refusal | undefined {
    const source = this.inspect(req);
    const host = this.parseHost(source.host);
    if (!this.hosts.allows(host, isLoopback(req.socket.localAddress))) {
      this.counters.hostRefused++;
      return {
        status: 421,
        code: 'host_not_allowed',
        detail: `Host '${source.host ?? ''}' is not one this server answers for (fw.security.allowed-hosts, fw.public-url)`,
      };
    }
    const origin = first(req.headers.origin);
    if (!this.origins.allows(origin, host?.host)) {
      this.counters.originRefused++;
      return {
        status: 403,
        code: 'origin_not_allowed',
        detail: `Origin '${origin ?? ''}' may not use this server (fw.security.allowed-origins)`,
      };
    }
    return undefined;
  }

  private parseHost(value: string | undefined): HostHeader | undefined {
    if (value !== this.lastHost.value) this.lastHost = { value, parsed: parseHostHeader(value) };
    return this.lastHost.parsed;
  }

  /** CORS headers for a screened request that carries an Origin (it is allowed, or screening would have refused it). */
  corsHeaders(req: IncomingMessage): Record<string, string> {
    const origin = first(req.headers.origin);
    if (origin === undefined) return {};
    return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED_HEADERS, vary: 'Origin' };
  }

  /**
   * Answers an OPTIONS request to an fw route (after screening: a refused origin already got its
   * 403): 204 with the route's methods, and for a CORS preflight the allow-origin, the methods,
   * the requested headers and a max-age (Fetch standard, "CORS protocol").
   */
  preflight(req: IncomingMessage, res: ServerResponse, methods: readonly string[]): void {
    this.counters.preflights++;
    const allow = [...new Set([...methods, 'OPTIONS'])].join(', ');
    const headers: Record<string, string> = { allow, 'cache-control': 'no-store', 'content-length': '0' };
    if (first(req.headers.origin) !== undefined) {
      const raw = req.headers['access-control-request-headers'];
      const asked = Array.isArray(raw) ? raw.join(', ') : raw;
      Object.assign(headers, this.corsHeaders(req), {
        'access-control-allow-methods': allow,
        'access-control-allow-headers': asked && /^[\w-]+(\s*,\s*[\w-]+)*$/.test(asked.trim()) ? asked.trim() : DEFAULT_ALLOWED_HEADERS,
        'access-control-max-age': '600',
      });
    }
    req.resume();
    res.writeHead(204, headers);
    res.end();
  }

  /**
   * The absolute base URL clients reach fw at, for URLs fw hands out (agent cards): `fw.public-url`
   * when set, else the address the request arrived on. Never the request's Host header: a
   * rebinding page would otherwise have the card advertise the attacker's host.
   */
  baseUrl(req: IncomingMessage): string {
    if (this.publicUrl) return this.publicUrl.href.replace(/\/+$/, '');
    const socket = req.socket as { localAddress?: string; localPort?: number; encrypted?: boolean };
    const ip = normalizeIp(socket.localAddress);
    let host = ip?.address ?? '127.0.0.1';
    if (ip?.family === 'ipv6') host = host.startsWith('::ffff:') && host.includes('.') ? host.slice(7) : `[${host}]`;
    return `${socket.encrypted ? 'https' : 'http'}://${host}:${socket.localPort ?? 80}`;
  }

  /** Reads a JSON body with this policy's depth limit (see `readJsonBody`). */
  readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
    return readJsonBody(req, { maxBytes, maxDepth: this.jsonDepth });
  }

  /** Parses a JSON message with this policy's depth limit (see `parseJson`). */
  parseJson(text: string): unknown {
    return parseJson(text, this.jsonDepth);
  }

  /**
   * Called for every request or upgrade screening refused, after the refusal was sent (the admin
   * plane audits refused writes this way). Returns a remover.
   */
  onRefusal(listener: RefusalListener): () => void {
    this.refusalListeners.add(listener);
    return () => this.refusalListeners.delete(listener);
  }

  /** Tells the refusal listeners (the framework calls this; a listener that throws is logged). */
  refused(req: IncomingMessage, url: URL, refusal: Refusal): void {
    for (const l of this.refusalListeners) {
      try {
        l(req, url, refusal);
      } catch (err) {
        this.log.error({ err }, 'refusal listener failed');
      }
    }
  }

  stats(): SecurityCounters {
    return { ...this.counters };
  }

  /** X-Forwarded-For from the right: the first address that is not a trusted proxy is the client. */
  private forwardedClient(header: string | string[] | undefined, peer: string | undefined): string | undefined {
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      const ip = normalizeIp(hop);
      if (!ip) return hop;
      if (!this.proxies.trusts(ip.address) || i === 0) return ip.address;
    }
    return peer;
  }
}

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  const s = v.split(',')[0]!.trim();
  return s === '' ? undefined : s;
}

function parsePublicUrl(raw: string): URL | undefined {
  if (raw.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(`fw.public-url must be an absolute http(s) URL, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`fw.public-url must be an http(s) URL, got '${raw}'`);
  return url;
}
