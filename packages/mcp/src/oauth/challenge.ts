import { FwError } from '@fw/runtime';

/** RFC 6750 §3.1 error codes a resource server answers with. */
export type BearerError = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

export interface ChallengeParams {
  /** The RFC 9728 metadata URL (RFC 9728 §5.1). */
  resourceMetadata: string;
  /** Scopes the request needs (RFC 6750 §3); omitted when empty. */
  scope?: readonly string[];
  error?: BearerError;
  errorDescription?: string;
}

/**
 * `WWW-Authenticate: Bearer …` (RFC 6750 §3, RFC 9728 §5.1). Values are quoted strings; an
 * error_description is cut to the characters RFC 6750 allows there (%x20-21 / %x23-5B / %x5D-7E).
 */
export function bearerChallenge(p: ChallengeParams): string {
  const parts: string[] = [];
  if (p.error) parts.push(`error="${p.error}"`);
  if (p.errorDescription) parts.push(`error_description="${p.errorDescription.replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, '')}"`);
  parts.push(`resource_metadata="${p.resourceMetadata}"`);
  if (p.scope && p.scope.length > 0) parts.push(`scope="${p.scope.join(' ')}"`);
  return `Bearer ${parts.join(', ')}`;
}

/**
 * A request the resource server refuses: 401 (no token, or an invalid one) or 403 (a valid token
 * without the scopes the operation needs). Carries its `WWW-Authenticate` challenge, which every
 * transport sends with the refusal (HTTP response, WebSocket upgrade refusal).
 */
export class OAuthRefusal extends FwError {
  readonly challenge: string;
  readonly bearerError: BearerError | undefined;
  readonly scopes: readonly string[];

  constructor(status: 401 | 403, detail: string, params: ChallengeParams) {
    super(status === 401 ? 'unauthorized' : 'insufficient_scope', detail, status, params.error ? { error: params.error } : undefined);
    this.challenge = bearerChallenge(params);
    this.bearerError = params.error;
    this.scopes = params.scope ?? [];
  }

  override get headers(): Record<string, string> {
    return { 'www-authenticate': this.challenge };
  }
}
