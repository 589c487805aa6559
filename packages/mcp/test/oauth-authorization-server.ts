import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type JWK } from 'oidc-provider';

/** A client registered with the test authorization server (client_credentials, client_secret_basic). */
export const CLIENT = { id: 'mcp-test-agent', secret: 'a-client-secret-long-enough-for-tests' };

/**
 * A public client of the authorization code flow with PKCE (what interactive MCP clients are). Its
 * redirect URI is never contacted: the test's "browser" stops at the redirect and reads the code.
 */
export const APP_CLIENT = { id: 'mcp-test-app', redirectUri: 'http://127.0.0.1:9/callback' };

/** The resource owner the authorization server logs in and who consents to everything asked. */
export const USER = 'alice';

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
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        // The server signs with its one EC key (the default would be RS256).
        id_token_signed_response_alg: 'ES256',
        scope: AS_SCOPES,
      },
      {
        client_id: APP_CLIENT.id,
        grant_types: ['authorization_code'],
        redirect_uris: [APP_CLIENT.redirectUri],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        id_token_signed_response_alg: 'ES256',
        scope: AS_SCOPES,
      },
    ],
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
  server.on('request', (req, res) => {
    // The user's side of the authorization endpoint: logged in as USER, consenting to every scope
    // and resource asked (oidc-provider's interaction API; its login and consent pages are not needed).
    if (req.url?.startsWith('/interaction/'))
      return void finishInteraction(provider, req, res).catch((err: Error) => res.writeHead(500).end(err.message));
    void callback(req, res);
  });
  return {
    issuer,
    signingKey: privateKey,
    kid,
    close: () =>
      new Promise<void>((resolve) => {
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
  if (!res.ok || !body.access_token)
    throw new Error(`token request failed: ${res.status} ${body.error ?? ''} ${body.error_description ?? ''}`);
  return body.access_token;
}

async function finishInteraction(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: USER } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId
    ? (await provider.Grant.find(details.grantId))!
    : new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/**
 * The browser: follows the authorization URL through the authorization server's redirects
 * (keeping its cookies, as a browser does) until it is sent to the client's redirect URI, and
 * returns that URL (with `code`, `state` and `iss`).
 */
export async function browse(authorizationUrl: URL, redirectUri: string): Promise<URL> {
  const cookies = new Map<string, string>();
  let url = authorizationUrl.href;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(redirectUri)) return new URL(url);
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = res.headers.get('location');
    await res.body?.cancel();
    if (!location) throw new Error(`the authorization server stopped at ${url} with ${res.status}`);
    url = new URL(location, url).href;
  }
  throw new Error('more than 20 redirects');
}
