import type { IncomingMessage } from 'node:http';
import type { Principal } from '../model.js';
import { clientAddress } from '../security/request-source.js';
import { addressGroup } from './address-group.js';

/**
 * Who asks for a share of something: the authenticated principal, if any, and the client's
 * address (trusted-proxy aware). Every per-caller limit (fair shares, rate limits) keys on this.
 */
export interface Caller {
  readonly principal?: Principal | undefined;
  readonly address: string | undefined;
}

/** The caller of a request: its principal (already authenticated by the surface) and client address. */
export function callerOf(req: IncomingMessage, principal?: Principal): Caller {
  return { principal, address: clientAddress(req) };
}

/**
 * The key one caller's share is counted under: the principal when there is one (a principal is
 * one party however many addresses it uses, and many principals behind one NAT are not one
 * party), else the address group (IPv6 /64). Prefixed so the two kinds never collide.
 */
export function shareKey(caller: Caller): { kind: 'principal' | 'address'; key: string } {
  if (caller.principal) return { kind: 'principal', key: `p:${caller.principal.id}` };
  return { kind: 'address', key: `a:${addressGroup(caller.address)}` };
}
