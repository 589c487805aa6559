import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type JWK } from 'oidc-provider';

/** A client registered with the test authorization server (client_credentials, client_secret_basic). */
export const CLIENT = { id: 'mcp-test-agent', secret: 'a-client-secret-long-enough-for-tests' };

/** Every scope the authorization server issues for a resource. */
export const AS_SCOPES = 'mcp:use files:read files:write';

export interface TestAuthorizationServer {
  issuer: string;
  /** The key that signs its access tokens (for minting deliberately bad tokens with a real key). */
  signingKey: KeyObject;
  kid: string;
  close(): Promise<void>;
}

/**
 * A real OAuth 2.1 / OpenID authorization server (`oidc-provider`) on a loopback port: RFC 8414 /
 * OIDC discovery, a JWKS, the token endpoint with the client_credentials grant, and RFC 8707
 * resource indicators, issuing JWT access tokens (RFC 9068) whose `aud` is the requested resource.
 */
export async function startAuthorizationServer(options: { accessTokenTtlSeconds?: number } = {}): Promise<TestAuthorizationServer> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = 'test-key-1';
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' } as JWK;
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
      // The server signs with its one EC key (the default would be RS256).
      id_token_signed_response_alg: 'ES256',
      scope: AS_SCOPES,
    }],
    jwks: { keys: [jwk] },
    scopes: AS_SCOPES.split(' '),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // Any resource may be asked for (the audience-confusion test asks for another one).
        getResourceServerInfo: (_ctx, resource) => ({
          scope: AS_SCOPES,
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: options.accessTokenTtlSeconds ?? 300,
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
  });
  const callback = provider.callback();
  server.on('request', (req, res) => void callback(req, res));
  return {
    issuer,
    signingKey: privateKey,
    kid,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A client_credentials token for `resource` straight from the token endpoint (no MCP client). */
export async function requestToken(as: TestAuthorizationServer, resource: string, scope: string): Promise<string> {
  const res = await fetch(`${as.issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }).toString(),
  });
  const body = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
  if (!res.ok || !body.access_token) throw new Error(`token request failed: ${res.status} ${body.error ?? ''} ${body.error_description ?? ''}`);
  return body.access_token;
}
