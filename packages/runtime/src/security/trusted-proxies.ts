import { BlockList } from 'node:net';
import { ConfigError } from '../config.js';
import { normalizeIp } from './ip-address.js';

/**
 * The reverse proxies whose `X-Forwarded-For/-Proto/-Host` fw believes (`fw.security.trusted-proxies`):
 * comma-separated addresses (`10.0.0.7`, `::1`), CIDR ranges (`10.0.0.0/8`, `fd00::/8`) and the
 * keyword `loopback` (127.0.0.0/8 and ::1). From anyone else those headers are ignored: a client
 * could otherwise claim any address (and pass the admin plane's loopback rule) or any host.
 */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly size: number;

  constructor(entries: readonly string[]) {
    let n = 0;
    for (const raw of entries.map((e) => e.trim()).filter(Boolean)) {
      n++;
      if (raw.toLowerCase() === 'loopback') {
        this.list.addSubnet('127.0.0.0', 8, 'ipv4');
        this.list.addAddress('::1', 'ipv6');
        continue;
      }
      const slash = raw.indexOf('/');
      const ip = normalizeIp(slash >= 0 ? raw.slice(0, slash) : raw);
      const prefix = slash >= 0 ? Number(raw.slice(slash + 1)) : undefined;
      const max = ip?.family === 'ipv4' ? 32 : 128;
      if (!ip || (prefix !== undefined && (!Number.isInteger(prefix) || prefix < 0 || prefix > max))) {
        throw new ConfigError(`fw.security.trusted-proxies: '${raw}' is not an IP address, a CIDR range or 'loopback'`);
      }
      if (prefix === undefined) this.list.addAddress(ip.address, ip.family);
      else this.list.addSubnet(ip.address, prefix, ip.family);
    }
    this.size = n;
  }

  static parse(list: string): TrustedProxies {
    return new TrustedProxies(list.split(','));
  }

  /** True when `address` (as a socket reports it) is one of the trusted proxies. */
  trusts(address: string | undefined): boolean {
    if (this.size === 0) return false;
    const ip = normalizeIp(address);
    return ip !== undefined && this.list.check(ip.address, ip.family);
  }
}
