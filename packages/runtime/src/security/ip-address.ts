import { isIP } from 'node:net';

/**
 * An IP address as a request or a config value spells it, cleaned for comparison: brackets and
 * an IPv6 zone id (`[fe80::1%eth0]` → `fe80::1`) removed, lower-cased. Undefined when what is
 * left is not an IP address.
 */
export function normalizeIp(address: string | undefined | null): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  if (!address) return undefined;
  let a = address.trim().toLowerCase();
  if (a.startsWith('[')) {
    const end = a.indexOf(']');
    if (end < 0) return undefined;
    a = a.slice(1, end);
  }
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  const family = isIP(a);
  return family === 4 ? { address: a, family: 'ipv4' } : family === 6 ? { address: a, family: 'ipv6' } : undefined;
}
