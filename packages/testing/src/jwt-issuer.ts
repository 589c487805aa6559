/**
 * A JWT issuer for tests: a fresh EC P-256 key, its JWKS served on a loopback port (what
 * `fw.auth.jwt.jwks-url` points at), and real ES256 tokens signed with it, e.g. with an `exp` a
 * few seconds ahead to watch a credential expire on an open socket. No dependency: node:crypto
 * signs (JWS ES256 is the raw r‖s signature, `ieee-p1363`).
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JwtIssuer {
  /** The `iss` of its tokens (its own loopback URL). */
  issuer: string;
  /** Where its JWKS is served. */
  jwksUrl: string;
  /** The `aud` its tokens carry unless `claims` say otherwise. */
  audience: string;
  /** A token for `sub`, valid for `ttlSeconds` (default 300) from now; `claims` override or add claims. */
  token(sub: string, ttlSeconds?: number, claims?: Record<string, unknown>): string;
  close(): Promise<void>;
}

export async function startJwtIssuer(audience = 'fw-test'): Promise<JwtIssuer> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = 'test-key';
  const jwks = JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' }] });
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(jwks);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return {
    issuer,
    jwksUrl: `${issuer}/jwks.json`,
    audience,
    token(sub, ttlSeconds = 300, claims = {}) {
      const now = Math.floor(Date.now() / 1000);
      const input = `${b64({ alg: 'ES256', typ: 'JWT', kid })}.${b64({ iss: issuer, aud: audience, sub, iat: now, exp: now + ttlSeconds, ...claims })}`;
      const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
      return `${input}.${signature.toString('base64url')}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
