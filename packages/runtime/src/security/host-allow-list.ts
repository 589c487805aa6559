import { ConfigError } from '../config.js';
import type { HostHeader } from './host-header.js';
import { parseHostHeader } from './host-header.js';
import { isLoopbackHostname } from './loopback.js';

/**
 * Which `Host` a request to an fw route may carry (`fw.security.allowed-hosts`, `fw.public-url`).
 * A browser tricked by DNS rebinding sends the attacker's name as Host, so a name fw was never
 * told about is refused:
 * - on a connection that arrived on a loopback address: `localhost`, `127.0.0.1`, `[::1]` (any
 *   port) or a configured name;
 * - on any other address: a configured name or the public URL's host only;
 * - `*` in the list allows any Host (the operator's explicit choice).
 * A configured entry without a port matches any port; `name:port` matches that port only.
 */
export class HostAllowList {
  private readonly any: boolean;
  private readonly names = new Set<string>();
  private readonly hostPorts = new Set<string>();

  constructor(entries: readonly string[], publicUrl: URL | undefined) {
    const list = entries.map((e) => e.trim()).filter(Boolean);
    this.any = list.includes('*');
    for (const e of list) {
      if (e === '*') continue;
      const h = parseHostHeader(e);
      if (!h) throw new ConfigError(`fw.security.allowed-hosts: '${e}' is not a host name (IPv6 in brackets: '[fd00::1]')`);
      if (h.port === undefined) this.names.add(h.hostname);
      else this.hostPorts.add(h.host);
    }
    if (publicUrl) {
      // `https://app.example` behind a proxy may arrive as `app.example` or `app.example:443`.
      const h = parseHostHeader(publicUrl.host);
      if (h?.port === undefined && h) this.names.add(h.hostname);
      else if (h) this.hostPorts.add(h.host);
    }
  }

  get allowsAny(): boolean {
    return this.any;
  }

  allows(host: HostHeader | undefined, arrivedOnLoopback: boolean): boolean {
    if (this.any) return true;
    if (!host) return false;
    if (this.names.has(host.hostname) || this.hostPorts.has(host.host)) return true;
    return arrivedOnLoopback && isLoopbackHostname(host.hostname);
  }
}
