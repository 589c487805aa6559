import type { IncomingMessage } from 'node:http';
import { clientAddress, isLoopback, type Principal } from '@fw/runtime';
import { bearerTokenResolver, type PrincipalResolver } from './principal.js';

export type GateResult =
  | { ok: true; principal: Principal | undefined }
  | { ok: false; status: 401 | 403; code: string; detail: string; headers?: Record<string, string> };

export interface GateOptions {
  token: string;
  resolver: PrincipalResolver | undefined;
  allowRemoteUnauthenticated: boolean;
}

/**
 * The one door into every admin surface (REST, event stream, dashboard data). Resolves the
 * principal (the app's resolver first, then the bearer token); when any authentication is
 * configured a request without a principal is a 401; when none is, only loopback clients get in
 * unless the operator opted out (secure by default).
 */
export class AdminGate {
  private readonly headerToken: PrincipalResolver | undefined;
  private readonly socketToken: PrincipalResolver | undefined;

  constructor(private readonly options: GateOptions) {
    if (options.token) {
      this.headerToken = bearerTokenResolver(options.token, { allowQuery: false });
      this.socketToken = bearerTokenResolver(options.token, { allowQuery: true });
    }
  }

  /** True when a principal is required (a token or a resolver is configured). */
  get authRequired(): boolean {
    return this.options.token !== '' || this.options.resolver !== undefined;
  }

  async resolve(req: IncomingMessage, url: URL, socket: boolean): Promise<Principal | undefined> {
    const fromApp = this.options.resolver ? await this.options.resolver(req, url) : undefined;
    if (fromApp) return fromApp;
    const token = socket ? this.socketToken : this.headerToken;
    return token ? await token(req, url) : undefined;
  }

  /**
   * `socket`: the request opens a socket, so `?access_token=` is accepted. Host and Origin were
   * checked by the framework before any admin route ran (fw.security.*).
   */
  async check(req: IncomingMessage, url: URL, socket = false): Promise<GateResult> {
    let principal: Principal | undefined;
    try {
      principal = await this.resolve(req, url, socket);
    } catch {
      principal = undefined;
    }
    if (this.authRequired) {
      if (!principal) {
        return {
          ok: false, status: 401, code: 'unauthorized', detail: 'the admin plane requires authentication',
          headers: { 'www-authenticate': 'Bearer realm="fw-admin"' },
        };
      }
      return { ok: true, principal };
    }
    if (!this.options.allowRemoteUnauthenticated && !isLoopback(clientAddress(req))) {
      return {
        ok: false, status: 403, code: 'remote_access_refused',
        detail: 'without authentication the admin plane answers loopback clients only (set fw.admin.auth.token)',
      };
    }
    return { ok: true, principal };
  }
}
