import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * `requestState` of multi round-trip requests (basic/patterns/mrtr): the client echoes it
 * verbatim, so anything fw keeps in it must be protected against tampering and replay. fw puts
 * the answers gathered so far, the request it belongs to (method + tool/prompt name or URI), the
 * principal and an expiry in it, and signs it with HMAC-SHA256 under `fw.mcp.request-state-key`.
 */
export interface SealedState {
  /** method */
  m: string;
  /** tool/prompt name or resource URI */
  n: string;
  /** principal id, or null */
  p: string | null;
  /** answers so far, by input key */
  a: Record<string, Record<string, unknown>>;
  /** expiry, epoch ms */
  e: number;
}

export class RequestStateSealer {
  private readonly key: Buffer;

  /** An empty key draws a random one: states then only verify in this process. */
  constructor(
    key: string,
    readonly ttlMs: number,
  ) {
    this.key = key ? Buffer.from(key, 'utf8') : randomBytes(32);
  }

  seal(state: Omit<SealedState, 'e'>): string {
    const body = Buffer.from(JSON.stringify({ ...state, e: Date.now() + this.ttlMs })).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The state when the signature, binding and expiry hold; otherwise a reason. */
  open(token: string, expect: { m: string; n: string; p: string | null }): SealedState | string {
    const dot = token.lastIndexOf('.');
    if (dot <= 0) return 'requestState is malformed';
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const wanted = Buffer.from(this.mac(body), 'base64url');
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return 'requestState integrity check failed';
    let state: SealedState;
    try {
      state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SealedState;
    } catch {
      return 'requestState is malformed';
    }
    if (state.m !== expect.m || state.n !== expect.n) return 'requestState belongs to another request';
    if (state.p !== expect.p) return 'requestState belongs to another principal';
    if (!(state.e > Date.now())) return 'requestState has expired (fw.mcp.request-state-ttl); start the request again';
    return state;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
