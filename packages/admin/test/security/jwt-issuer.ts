/**
 * A local identity provider for the credential tests: an ES256 key, its JWKS served over HTTP on
 * loopback, and real JWTs minted with a chosen expiry, for `fw.auth.jwt.*`.
 */
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export interface Issuer {
  /** The `fw.auth.jwt.*` settings that trust this issuer (clock tolerance 0: `exp` means `exp`). */
  settings: Record<string, unknown>;
  /** A JWT for `sub` with `roles`, expiring `ttlSeconds` from now. */
  mint(sub: string, roles: string[], ttlSeconds: number): Promise<string>;
  close(): Promise<void>;
}

const ISSUER = 'https://login.test.example/';
const AUDIENCE = 'fw-admin';

export async function startIssuer(): Promise<Issuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    settings: {
      'fw.auth.jwt.jwks-url': `http://127.0.0.1:${port}/jwks`,
      'fw.auth.jwt.issuer': ISSUER,
      'fw.auth.jwt.audience': AUDIENCE,
      'fw.auth.jwt.clock-tolerance': 0,
    },
    mint: (sub, roles, ttlSeconds) =>
      new SignJWT({ roles })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setSubject(sub)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
        .sign(privateKey),
    close: () => new Promise((r) => server.close(() => r())),
  };
}
