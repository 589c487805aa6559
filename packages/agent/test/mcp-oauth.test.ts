import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import Provider, { type JWK } from 'oidc-provider';
import { Agent, AgentTool } from '../dist/index.js';
import { startApp } from './helpers.js';

@Agent({ name: 'archivist', headless: true })
class Archivist {
  @AgentTool({ description: 'Finds a record', input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } })
  lookup(input: { id: string }): string {
    return `record ${input.id}`;
  }
}

@Agent({ name: 'cashier', headless: true })
class Cashier {
  @AgentTool({ description: 'Pays' })
  pay(): string {
    return 'paid';
  }
}

const CLIENT = { id: 'agent-client', secret: 'agent-client-secret-0123456789' };

/** A real authorization server (oidc-provider) on loopback issuing JWT access tokens for any resource (RFC 8707). */
async function authorizationServer(): Promise<{ issuer: string; close(): Promise<void> }> {
  const jwk = {
    ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }),
    kid: 'k1',
    alg: 'ES256',
    use: 'sig',
  } as JWK;
  const { createServer } = await import('node:http');
  const server = createServer();
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
        id_token_signed_response_alg: 'ES256',
        scope: 'mcp:use',
      },
    ],
    jwks: { keys: [jwk] },
    scopes: ['mcp:use'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: 'mcp:use',
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 300,
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
  });
  const callback = provider.callback();
  server.on('request', (req, res) => void callback(req, res));
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function tokenFor(issuer: string, resource: string): Promise<string> {
  const res = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: 'mcp:use' }).toString(),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

test("per-agent MCP endpoints are OAuth resource servers of their own: metadata, the SDK client's flow, and no token of another agent", async () => {
  const as = await authorizationServer();
  // fw.auth.tokens protects A2A/AG-UI; the MCP endpoints take OAuth tokens instead.
  const app = await startApp((m) => [Archivist, Cashier].forEach((c) => m.mount(c)), {
    'fw.mcp.oauth.authorization-servers': as.issuer,
    'fw.mcp.oauth.scopes': 'mcp:use',
    'fw.auth.tokens': 'ops:operator:a-static-operator-token-0123',
  });
  const archivist = `${app.base}/fw/agent/archivist/mcp`;
  const client = new Client({ name: 'agent-oauth', version: '1.0.0' });
  try {
    const doc = await fetch(`${app.base}/.well-known/oauth-protected-resource/fw/agent/archivist/mcp`);
    assert.equal(doc.status, 200);
    assert.deepEqual(await doc.json(), {
      resource: archivist,
      authorization_servers: [as.issuer],
      scopes_supported: ['mcp:use'],
      bearer_methods_supported: ['header'],
      resource_name: 'archivist',
    });
    const bare = await fetch(archivist, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    assert.equal(bare.status, 401);
    assert.equal(
      bare.headers.get('www-authenticate'),
      `Bearer resource_metadata="${app.base}/.well-known/oauth-protected-resource/fw/agent/archivist/mcp", scope="mcp:use"`,
    );
    // The static token that opens A2A is not an OAuth token for this resource.
    const staticToken = await fetch(archivist, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: 'Bearer a-static-operator-token-0123' },
      body: '{}',
    });
    assert.equal(staticToken.status, 401);
    assert.match(staticToken.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);

    await client.connect(
      new StreamableHTTPClientTransport(new URL(archivist), {
        authProvider: new ClientCredentialsProvider({
          clientId: CLIENT.id,
          clientSecret: CLIENT.secret,
          expectedIssuer: as.issuer,
          scope: 'mcp:use',
        }),
      }),
    );
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['lookup'],
    );
    const found = await client.callTool({ name: 'lookup', arguments: { id: '42' } });
    assert.deepEqual(found.content, [{ type: 'text', text: 'record 42' }]);

    // Audience confusion between agents: the cashier's token does not open the archivist.
    const cashierToken = await tokenFor(as.issuer, `${app.base}/fw/agent/cashier/mcp`);
    const confused = await fetch(archivist, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${cashierToken}` },
      body: '{}',
    });
    assert.equal(confused.status, 401);
    assert.match(confused.headers.get('www-authenticate') ?? '', /error_description="invalid token: claim 'aud' does not match"/);
  } finally {
    await client.close();
    await app.close();
    await as.close();
  }
});
