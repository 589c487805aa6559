import type { IncomingMessage } from 'node:http';
import { AuthenticationError, FwError, hasRole, type Authenticator, type Principal } from '@fw/runtime';
import { isLoopback, type ClientAddress } from './principal.js';

export type GateResult =
  | { ok: true; principal: Principal | undefined; address: string | undefined }
  | {
      ok: false;
      status: 401 | 403;
      code: string;
      detail: string;
      address: string | undefined;
      principal?: Principal;
      headers?: Record<string, string>;
    };

export interface GateOptions {
  /** The chain that finds the principal (the admin token, the app's resolver, fw.auth.*); undefined: none configured. */
  authenticator: Authenticator | undefined;
  allowRemoteUnauthenticated: boolean;
  /** The client's address (the runtime's `clientAddress`: trusted-proxy aware). */
  clientAddress: ClientAddress;
  /** Whether an operator revoked the principal's credentials (`fw.credentials`); its requests are then 401. */
  isRevoked?: (principal: Principal) => boolean;
}

export interface CheckOptions {
  /** The request opens a socket or a stream: `?access_token=` is accepted. (Host and Origin were checked by the framework before any admin route ran: fw.security.*.) */
  socket?: boolean;
  /** Skip the `viewer` role check (writes check their own role in the control plane). */
  write?: boolean;
}

const CHALLENGE = { 'www-authenticate': 'Bearer realm="fw-admin"' };

/**
 * The one door into every admin surface (REST, event stream, dashboard data, admin MCP tools,
 * metrics). Authentication → principal → role: when any authentication is configured a request
 * without a principal is a 401 and a principal without the `viewer` role a 403; when none is, only
 * loopback clients get in (as the anonymous local operator) unless the operator opted out.
 */
export class AdminGate {
  constructor(private readonly options: GateOptions) {}

  /** True when a principal is required (a token, an authenticator or fw.auth.* is configured). */
  get authRequired(): boolean {
    return this.options.authenticator !== undefined;
  }

  clientAddress(req: IncomingMessage): string | undefined {
    return this.options.clientAddress(req);
  }

  /**
   * The principal of a request, or undefined; throws an FwError (401) for a rejected credential,
   * and for one revoked with `fw.credentials.revoke` whichever authenticator accepted it (the
   * admin token and an app's resolver included, not only `fw.auth.*`).
   */
  async resolve(req: IncomingMessage, url: URL, socket = false): Promise<Principal | undefined> {
    if (!this.options.authenticator) return undefined;
    const principal = await this.options.authenticator(req, url, { socket });
    if (principal && this.options.isRevoked?.(principal)) throw new AuthenticationError('the credential was revoked');
    return principal;
  }

  async check(req: IncomingMessage, url: URL, options: CheckOptions | boolean = {}): Promise<GateResult> {
    const { socket = false, write = false } = typeof options === 'boolean' ? { socket: options } : options;
    const address = this.clientAddress(req);
    if (this.authRequired) {
      let principal: Principal | undefined;
      try {
        principal = await this.resolve(req, url, socket);
      } catch (err) {
        const detail = err instanceof FwError && err.status === 401 ? err.message : 'the credential could not be verified';
        return { ok: false, status: 401, code: 'unauthorized', detail, address, headers: CHALLENGE };
      }
      if (!principal) {
        return {
          ok: false,
          status: 401,
          code: 'unauthorized',
          detail: 'the admin plane requires authentication',
          address,
          headers: CHALLENGE,
        };
      }
      if (!write && !hasRole(principal, 'viewer')) {
        return {
          ok: false,
          status: 403,
          code: 'forbidden',
          detail: `principal '${principal.id}' has no admin role (viewer, operator or admin)`,
          address,
          principal,
        };
      }
      return { ok: true, principal, address };
    }
    return this.admitsAnonymous(address)
      ? { ok: true, principal: undefined, address }
      : {
          ok: false,
          status: 403,
          code: 'remote_access_refused',
          address,
          detail:
            'without authentication the admin plane answers loopback clients only (configure fw.auth.tokens, fw.auth.jwt.* or fw.admin.auth.token)',
        };
  }

  /** Whether a client at `address` with `principal` may see the admin plane at all (the MCP tools' visibility). */
  admits(principal: Principal | undefined, address: string | undefined): boolean {
    return this.authRequired ? hasRole(principal, 'viewer') : this.admitsAnonymous(address);
  }

  private admitsAnonymous(address: string | undefined): boolean {
    return this.options.allowRemoteUnauthenticated || isLoopback(address);
  }
}
