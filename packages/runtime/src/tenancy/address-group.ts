import { isIPv4 } from 'node:net';
import { normalizeIp } from '../security/ip-address.js';

/**
 * The unit a per-address share counts: an IPv4 address itself (IPv4-mapped IPv6 spellings
 * included), an IPv6 address by its /64 prefix. One IPv6 host is normally handed a whole /64
 * (RFC 6177, RFC 7934 §6), so counting single IPv6 addresses would let one client rotate its
 * source address through 2^64 of them and multiply its share. Anything that is not an IP address
 * (a Unix socket, a test double) is its own group.
 */
export function addressGroup(address: string | undefined): string {
  if (!address) return 'unknown';
  if (isIPv4(address)) return address;
  const ip = normalizeIp(address);
  if (!ip) return address;
  if (ip.family === 'ipv4') return ip.address;
  const groups = expandIpv6(ip.address);
  if (!groups) return ip.address;
  // ::ffff:a.b.c.d is an IPv4 client on a dual-stack socket: the IPv4 address is its group.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (with `::` and a dotted IPv4 tail). */
function expandIpv6(address: string): number[] | undefined {
  let text = address;
  const dotted = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (s: string): number[] => (s === '' ? [] : s.split(':').map((h) => Number.parseInt(h, 16)));
  const front = parse(halves[0]!);
  const back = halves.length === 2 ? parse(halves[1]!) : [];
  const fill = 8 - front.length - back.length;
  if (halves.length === 1 ? fill !== 0 : fill < 0) return undefined;
  const out = [...front, ...new Array<number>(fill).fill(0), ...back];
  return out.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffff) ? out : undefined;
}
