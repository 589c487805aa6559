import { BlockList } from 'node:net';
import { normalizeIp } from './ip-address.js';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * True for a loopback address: IPv4 127.0.0.0/8, IPv6 `::1` in any spelling, with or without
 * brackets and a zone id (`[::1%lo0]`), and IPv4-mapped IPv6 (`::ffff:127.0.0.1`, `::ffff:7f00:1`;
 * node's BlockList matches those against the IPv4 rule). Names (`localhost`) are not addresses
 * and answer false: see `isLoopbackHostname`.
 */
export function isLoopback(address: string | undefined | null): boolean {
  if (!address) return false;
  // Fast paths for the spellings sockets report (checked on every request); BlockList for the rest.
  if (address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1') return true;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (IPV4.test(v4)) return v4.startsWith('127.') && v4.split('.').every((p) => Number(p) <= 255);
  const ip = normalizeIp(address);
  return ip !== undefined && LOOPBACK.check(ip.address, ip.family);
}

const IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** The Host names that always mean "this machine": `localhost`, `127.0.0.1` and `[::1]` (issue 11, item 2). */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === 'localhost' || h === '127.0.0.1' || h === '[::1]' || h === '::1';
}
