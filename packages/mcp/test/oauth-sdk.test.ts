import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Framework } from '@fw/runtime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import {
  Client as ClientV2,
  ClientCredentialsProvider as ClientCredentialsProviderV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { McpParam, McpServer, McpTool, mountMcpServer, type McpContext } from '../dist/index.js';
import {
  APP_CLIENT,
  browse,
  CLIENT,
  requestToken,
  startAuthorizationServer,
  USER,
  type TestAuthorizationServer,
} from './oauth-authorization-server.js';

/**
 * The official MCP SDK clients run their real OAuth flow against fw as a resource server and a
 * real authorization server (oidc-provider) in this process: the first request gets 401 with a
 * `resource_metadata` challenge, the client reads fw's RFC 9728 document, discovers the
 * authorization server's metadata, gets a token for fw's resource (RFC 8707 `resource`) by the
 * authorization code + PKCE flow or client_credentials, then lists and calls tools; a tool needing
 * more scope answers 403 insufficient_scope naming every scope the call needs, and an
 * interactive client steps up.
 */
@McpServer({ name: 'oauth-files', version: '1.0.0', path: '/mcp' })
class FilesServer {
  @McpTool({ name: 'read_file', description: 'reads a file' })
  read(@McpParam({ name: 'path', description: 'file path', type: 'string' }) path: string): string {
    return `contents of ${path}`;
  }

  @McpTool({ name: 'write_file', description: 'writes a file', scopes: ['files:write'] })
  write(@McpParam({ name: 'path', description: 'file path', type: 'string' }) path: string): string {
    return `wrote ${path}`;
  }

  @McpTool({ name: 'whoami', description: 'the caller' })
  whoami(ctx: McpContext): string {
    return ctx.principal?.id ?? 'anonymous';
  }
}

let as: TestAuthorizationServer;
let fw: Framework;
let port: number;

before(async () => {
  as = await startAuthorizationServer();
  fw = new Framework({
    configFile: false,
    'fw.mcp.oauth.authorization-servers': as.issuer,
    'fw.mcp.oauth.scopes': 'mcp:use',
  });
  mountMcpServer(fw, FilesServer);
  port = (await fw.listen(0, '127.0.0.1')).port;
});

after(async () => {
  await fw.close();
  await as.close();
});

interface Seen {
  method: string;
  url: string;
  status: number;
  challenge: string | null;
  token: string | undefined;
}

/** A fetch that records what the client sent and got, to check the flow's steps. */
function recording(seen: Seen[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const auth = new Headers(init?.headers).get('authorization');
    seen.push({
      method: init?.method ?? 'GET',
      url: String(input instanceof Request ? input.url : input),
      status: res.status,
      challenge: res.headers.get('www-authenticate'),
      token: auth?.startsWith('Bearer ') ? auth.slice(7) : undefined,
    });
    return res;
  };
}

function claims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

function checkFlow(seen: Seen[]): void {
  const mcp = `http://127.0.0.1:${port}/mcp`;
  const metadata = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
  const first = seen[0]!;
  assert.equal(first.url, mcp);
  assert.equal(first.status, 401);
  assert.equal(first.challenge, `Bearer resource_metadata="${metadata}", scope="mcp:use"`);
  assert.ok(
    seen.some((s) => s.url === metadata && s.status === 200),
    'the client read the RFC 9728 document',
  );
  assert.ok(
    seen.some((s) => s.url.startsWith(`${as.issuer}/.well-known/`) && s.status === 200),
    'the client read the authorization server metadata',
  );
  assert.ok(
    seen.some((s) => s.url === `${as.issuer}/token` && s.status === 200),
    'the client got a token',
  );
  const used = seen.filter((s) => s.url === mcp && s.token);
  assert.ok(used.length > 0);
  for (const s of used) {
    const c = claims(s.token!);
    assert.equal(c.aud, mcp, 'RFC 8707: the token is for this resource');
    assert.equal(c.iss, as.issuer);
  }
}

test('SDK v1 client: 401 → RFC 9728 → AS metadata → client_credentials token for the resource → tools; a tool beyond its scope is a 403 insufficient_scope', async () => {
  const seen: Seen[] = [];
  // The v1 SDK's client_credentials provider asks for its configured scope (not the challenge's).
  const provider = new ClientCredentialsProvider({
    clientId: CLIENT.id,
    clientSecret: CLIENT.secret,
    expectedIssuer: as.issuer,
    scope: 'mcp:use',
  });
  const client = new Client({ name: 'oauth-v1', version: '1.0.0' });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { authProvider: provider, fetch: recording(seen) }),
    );
    checkFlow(seen);
    const tools = await client.listTools();
    assert.deepEqual(tools.tools.map((t) => t.name).sort(), ['read_file', 'whoami', 'write_file']);
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } });
    assert.deepEqual(read.content, [{ type: 'text', text: 'contents of a.txt' }]);
    const who = await client.callTool({ name: 'whoami', arguments: {} });
    assert.deepEqual(who.content, [{ type: 'text', text: CLIENT.id }], "the principal is the token's subject");
    assert.equal(claims(seen.find((s) => s.token)!.token!).scope, 'mcp:use');
    // write_file needs files:write too: 403 with every scope the call needs in one challenge. The
    // SDK tries to step up, but a client_credentials client only asks for its configured scope.
    const before403 = seen.length;
    await assert.rejects(
      client.callTool({ name: 'write_file', arguments: { path: 'b.txt' } }),
      (err: { code?: number }) => err.code === 403,
    );
    const refused = seen.slice(before403).find((s) => s.status === 403);
    assert.equal(
      refused?.challenge,
      `Bearer error="insufficient_scope", error_description="the tool 'write_file' needs the scope(s) files:write, which the access token lacks", resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp", scope="mcp:use files:write"`,
    );
  } finally {
    await client.close();
  }
  // A client configured with the scope the challenge named gets its call through.
  const writer = new Client({ name: 'oauth-v1-writer', version: '1.0.0' });
  try {
    const wide = new ClientCredentialsProvider({
      clientId: CLIENT.id,
      clientSecret: CLIENT.secret,
      expectedIssuer: as.issuer,
      scope: 'mcp:use files:write',
    });
    await writer.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { authProvider: wide }));
    const wrote = await writer.callTool({ name: 'write_file', arguments: { path: 'b.txt' } });
    assert.deepEqual(wrote.content, [{ type: 'text', text: 'wrote b.txt' }]);
  } finally {
    await writer.close();
  }
});

/**
 * An interactive client's provider, as an app implements it (the SDK defines the interface): a
 * pre-registered public client, PKCE verifier and tokens kept in memory, and the "browser" is the
 * URL the SDK asks to open.
 */
class AppProvider implements OAuthClientProvider {
  opened: URL | undefined;
  private verifier = '';
  private saved: OAuthTokens | undefined;
  private info: OAuthClientInformationMixed = { client_id: APP_CLIENT.id };

  get redirectUrl(): string {
    return APP_CLIENT.redirectUri;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'fw oauth test',
      redirect_uris: [APP_CLIENT.redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation(): OAuthClientInformationMixed {
    return this.info;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.opened = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}

test('SDK v1 client, authorization code + PKCE: 401 → metadata → the user authorizes at the real authorization server → token for the resource → tools → step-up on 403', async () => {
  const seen: Seen[] = [];
  const provider = new AppProvider();
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: recording(seen) });
  await assert.rejects(
    new Client({ name: 'oauth-app', version: '1.0.0' }).connect(first),
    UnauthorizedError,
    'the first connect ends at the authorization redirect',
  );
  const opened = provider.opened!;
  assert.equal(opened.origin + opened.pathname, `${as.issuer}/auth`);
  assert.equal(opened.searchParams.get('resource'), url.href, 'RFC 8707 resource in the authorization request');
  assert.equal(opened.searchParams.get('scope'), 'mcp:use', 'the scope of the 401 challenge');
  assert.equal(opened.searchParams.get('code_challenge_method'), 'S256');
  const callback = await browse(opened, APP_CLIENT.redirectUri);
  assert.equal(callback.searchParams.get('iss'), as.issuer, 'RFC 9207 issuer in the response');
  await first.finishAuth(callback.searchParams.get('code')!);
  await first.close();

  const client = new Client({ name: 'oauth-app', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: recording(seen) });
  try {
    await client.connect(transport);
    checkFlow(seen);
    const who = await client.callTool({ name: 'whoami', arguments: {} });
    assert.deepEqual(who.content, [{ type: 'text', text: USER }], 'the principal is the user who authorized');
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'e.txt' } });
    assert.deepEqual(read.content, [{ type: 'text', text: 'contents of e.txt' }]);

    // Step-up (basic/authorization "Step-Up Authorization Flow"): write_file needs files:write;
    // the 403's challenge sends the user back to the authorization server for exactly that.
    provider.opened = undefined;
    await assert.rejects(client.callTool({ name: 'write_file', arguments: { path: 'f.txt' } }), UnauthorizedError);
    assert.deepEqual(provider.opened!.searchParams.get('scope')?.split(' ').sort(), ['files:write', 'mcp:use']);
    assert.equal(provider.opened!.searchParams.get('resource'), url.href);
    await transport.finishAuth((await browse(provider.opened!, APP_CLIENT.redirectUri)).searchParams.get('code')!);
    const wrote = await client.callTool({ name: 'write_file', arguments: { path: 'f.txt' } });
    assert.deepEqual(wrote.content, [{ type: 'text', text: 'wrote f.txt' }]);
  } finally {
    await client.close();
  }
});

const v2Modes: [string, VersionNegotiationMode, string][] = [
  ['legacy', 'legacy', '2025-11-25'],
  ['pinned 2026-07-28', { pin: '2026-07-28' }, '2026-07-28'],
];
for (const [label, mode, expected] of v2Modes) {
  test(`SDK v2 client (${label}): the same OAuth flow, then tools`, async () => {
    const seen: Seen[] = [];
    const provider = new ClientCredentialsProviderV2({
      clientId: CLIENT.id,
      clientSecret: CLIENT.secret,
      expectedIssuer: as.issuer,
      scope: 'mcp:use files:write',
    });
    const client = new ClientV2({ name: 'oauth-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
    try {
      await client.connect(
        new StreamableHTTPClientTransportV2(new URL(`http://127.0.0.1:${port}/mcp`), { authProvider: provider, fetch: recording(seen) }),
      );
      assert.equal(client.getNegotiatedProtocolVersion(), expected);
      checkFlow(seen);
      const tools = await client.listTools();
      assert.deepEqual(tools.tools.map((t) => t.name).sort(), ['read_file', 'whoami', 'write_file']);
      const read = await client.callTool({ name: 'read_file', arguments: { path: 'c.txt' } });
      assert.deepEqual(read.content, [{ type: 'text', text: 'contents of c.txt' }]);
      const wrote = await client.callTool({ name: 'write_file', arguments: { path: 'd.txt' } });
      assert.deepEqual(wrote.content, [{ type: 'text', text: 'wrote d.txt' }]);
    } finally {
      await client.close();
    }
  });
}

test('stdio bridge: the access token from the environment (FW_MCP_BRIDGE_TOKEN) reaches the protected endpoint; without it the client sees the 401', async () => {
  const bridge = fileURLToPath(new URL('../dist/bin/stdio-bridge.js', import.meta.url));
  const url = `http://127.0.0.1:${port}/mcp`;
  const token = await requestToken(as, url, 'mcp:use');
  const client = new Client({ name: 'oauth-stdio', version: '1.0.0' });
  try {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bridge, url],
        env: { ...process.env, FW_MCP_BRIDGE_TOKEN: token } as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    const who = await client.callTool({ name: 'whoami', arguments: {} });
    assert.deepEqual(who.content, [{ type: 'text', text: CLIENT.id }]);
  } finally {
    await client.close();
  }
  const anonymous = new Client({ name: 'oauth-stdio-anonymous', version: '1.0.0' });
  const env = { ...process.env } as Record<string, string>;
  delete env.FW_MCP_BRIDGE_TOKEN;
  try {
    await assert.rejects(
      anonymous.connect(new StdioClientTransport({ command: process.execPath, args: [bridge, url], env, stderr: 'pipe' })),
      /401/,
    );
  } finally {
    await anonymous.close();
  }
});
