import type { IncomingMessage } from 'node:http';
import type { Interceptor } from '../model.js';

/**
 * Which browser origins may open connections. Requests without an `Origin` header (non-browser
 * clients) and same-origin requests (Origin host equals the Host header) are always allowed;
 * others only when listed in the allow-list (`*` allows any origin).
 */
export class OriginPolicy {
  private readonly allow: Set<string>;

  constructor(allow: readonly string[]) {
    this.allow = new Set(allow.map((o) => o.trim().replace(/\/$/, '')).filter(Boolean));
  }

  static parse(list: string): OriginPolicy {
    return new OriginPolicy(list.split(','));
  }

  allows(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    if (this.allow.has('*') || this.allow.has(origin)) return true;
    try {
      return new URL(origin).host === req.headers.host;
    } catch {
      return false;
    }
  }

  /** True when the request is cross-origin and allowed: the response then carries CORS headers. */
  corsOrigin(req: IncomingMessage): string | undefined {
    const origin = req.headers.origin;
    return origin !== undefined && this.allows(req) ? origin : undefined;
  }
}

/** Refuses connections from origins the policy does not allow, with 403 `origin_not_allowed`. */
export function originCheck(policy: OriginPolicy | { allow: readonly string[] }): Interceptor {
  const p = policy instanceof OriginPolicy ? policy : new OriginPolicy(policy.allow);
  return {
    name: 'origin',
    connect(ctx) {
      if (p.allows(ctx.req)) return undefined;
      return { status: 403, code: 'origin_not_allowed', detail: `origin '${ctx.req.headers.origin}' is not allowed` };
    },
  };
}
