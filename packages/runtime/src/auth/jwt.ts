import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { FwError } from '../errors.js';
import type { Principal } from '../model.js';
import { AuthenticationError, bearerCredential, type Authenticator } from './authenticator.js';

export interface JwtOptions {
  /**
   * Where the signing keys are published (`https://issuer.example/.well-known/jwks.json`), or a
   * function that finds it on first use (e.g. from the issuer's RFC 8414 metadata); a failed
   * lookup is retried by the next token.
   */
  jwksUrl: string | (() => Promise<string>);
  /** Required `iss` (one of them, when several issuers are trusted). */
  issuer: string | string[];
  /** Required `aud` (one of the token's audiences must be this, or one of these); `context.audience` replaces it per request. */
  audience: string | string[];
  /** Claim holding the roles: an array of strings or a space-separated string (default `roles`). */
  rolesClaim?: string;
  /** Claim naming the principal (default `sub`). */
  principalClaim?: string;
  /** Clock skew allowed on `exp`/`nbf`, in milliseconds (default 30 s). */
  clockToleranceMs?: number;
  /** Accepted signature algorithms (default: the asymmetric ones jose supports; never `none` or HMAC). */
  algorithms?: string[];
}

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** A JWT shape: three base64url parts. Anything else is not ours to judge (another authenticator's token). */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * JWT bearer tokens (RFC 7519) verified with `jose` against a JWKS (RFC 7517) fetched from
 * `jwksUrl` (cached, refetched when a token names an unknown key). Issuer, audience, expiry and
 * not-before are checked (RFC 7519 §4.1); a token that fails any check is a 401 with the reason.
 */
export function jwtBearer(options: JwtOptions): Authenticator {
  let keySet: ReturnType<typeof createRemoteJWKSet> | undefined;
  const keys = async (): Promise<ReturnType<typeof createRemoteJWKSet>> => {
    if (keySet) return keySet;
    let url: string;
    try {
      url = typeof options.jwksUrl === 'string' ? options.jwksUrl : await options.jwksUrl();
    } catch (err) {
      // Not remembered: the next request tries the discovery again.
      throw new KeysUnavailableError(`the signing keys cannot be located: ${(err as Error).message ?? String(err)}`);
    }
    keySet = createRemoteJWKSet(new URL(url));
    return keySet;
  };
  const rolesClaim = options.rolesClaim ?? 'roles';
  const principalClaim = options.principalClaim ?? 'sub';
  const clockTolerance = Math.round((options.clockToleranceMs ?? 30_000) / 1000);
  const algorithms = options.algorithms ?? ASYMMETRIC;
  return async (req, url, context) => {
    const token = bearerCredential(req, url, context);
    if (token === undefined || !JWT_SHAPE.test(token)) return undefined;
    let payload: JWTPayload;
    const keySource = await keys();
    try {
      const audience = context?.audience ?? options.audience;
      ({ payload } = await jwtVerify(token, keySource, { issuer: options.issuer, audience, clockTolerance, algorithms }));
    } catch (err) {
      if (keysUnreachable(err)) throw new KeysUnavailableError(`the signing keys cannot be fetched (${reason(err)})`);
      throw new AuthenticationError(`invalid token: ${reason(err)}`);
    }
    const id = payload[principalClaim];
    if (typeof id !== 'string' || id === '') throw new AuthenticationError(`invalid token: no '${principalClaim}' claim`);
    const principal: Principal = {
      ...payload,
      id,
      roles: rolesOf(payload[rolesClaim]),
      ...(typeof payload.exp === 'number' ? { expiresAt: payload.exp * 1000 } : {}),
    };
    return principal;
  };
}

/**
 * The authorization server's signing keys cannot be fetched (its JWKS or metadata is down or
 * answers nonsense). That says nothing about the token, so it is a 503 with Retry-After, not a
 * 401: a client told 401 would throw a good token away and start a new authorization.
 */
export class KeysUnavailableError extends FwError {
  constructor(detail: string) {
    super('auth_keys_unavailable', detail, 503, undefined, { 'retry-after': '5' });
  }
}

/** Errors of fetching the key set, as opposed to errors of the token. */
function keysUnreachable(err: unknown): boolean {
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) return true;
  // jose reports a JWKS answer other than 200 as a generic error naming the key set; a refused or
  // reset connection arrives as fetch's own TypeError.
  if (err instanceof errors.JOSEError) return err.code === 'ERR_JOSE_GENERIC' && /JSON Web Key Set/i.test(err.message);
  return err instanceof TypeError;
}

function rolesOf(claim: unknown): string[] {
  if (Array.isArray(claim)) return claim.filter((r): r is string => typeof r === 'string');
  if (typeof claim === 'string') return claim.split(/\s+/).filter(Boolean);
  return [];
}

/** A short, stable reason that names the failed check, never the token. */
function reason(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'expired';
  if (err instanceof errors.JWTClaimValidationFailed)
    return `claim '${err.claim}' ${err.reason === 'check_failed' ? 'does not match' : err.reason}`;
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'bad signature';
  if (err instanceof errors.JWKSNoMatchingKey) return 'no matching signing key';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'algorithm not allowed';
  if (err instanceof errors.JWKSTimeout) return 'signing keys unavailable';
  if (err instanceof errors.JWTInvalid || err instanceof errors.JWSInvalid) return 'malformed';
  if (err instanceof errors.JOSEError) return err.code.replace(/^ERR_/, '').toLowerCase();
  return 'could not be verified';
}
