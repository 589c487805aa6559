import { AUTH_CONFIG, ConfigError, defineConfig, type ConfigTypes, type Framework } from '@fw/runtime';
import { parseScopes, parseToolScopes } from './scopes.js';

/**
 * The keys that make MCP endpoints OAuth 2.1 resource servers (MCP basic/authorization, both the
 * 2025-11-25 and 2026-07-28 revisions). Documented in docs/mcp.md, "OAuth".
 */
export const MCP_OAUTH_CONFIG = defineConfig({
  'fw.mcp.oauth.authorization-servers': {
    type: 'string',
    default: '',
    description:
      'Issuer URLs of the OAuth authorization servers whose access tokens MCP endpoints accept (comma-separated); setting it makes /mcp and every per-agent MCP endpoint an OAuth 2.1 resource server (RFC 9728 metadata, 401/403 challenges, RFC 8707 audience).',
  },
  'fw.mcp.oauth.jwks-url': {
    type: 'string',
    default: '',
    description:
      "JWKS URL of the access tokens' signing keys; empty: the `jwks_uri` of the first authorization server's metadata (RFC 8414, then OpenID Connect discovery).",
  },
  'fw.mcp.oauth.scopes': {
    type: 'string',
    default: '',
    description: "Scopes (space-separated) every MCP request needs; named in the 401 challenge's `scope` and in `scopes_supported`.",
  },
  'fw.mcp.oauth.tool-scopes': {
    type: 'string',
    default: '',
    description:
      "Scopes per tool, `tool=scope scope,tool2=scope`; a tools/call without them is refused with 403 insufficient_scope. Overrides the tool's own `scopes`.",
  },
  'fw.mcp.oauth.token-cache': {
    type: 'number',
    default: 1000,
    description:
      "Verified access tokens remembered (per framework, until each one's `exp`) so a session's requests do not re-check the signature; 0 verifies every request.",
  },
  'fw.mcp.oauth.resource-name': {
    type: 'string',
    default: '',
    description: "Human-readable `resource_name` of the protected resource metadata (default: the MCP server's name).",
  },
});

declare module '@fw/runtime' {
  interface FwConfigKeys extends ConfigTypes<typeof MCP_OAUTH_CONFIG> {}
}

/** The resolved settings, read once per framework. */
export interface OAuthSettings {
  authorizationServers: string[];
  /** Empty: discovered from the first authorization server's metadata. */
  jwksUrl: string;
  scopes: string[];
  toolScopes: ReadonlyMap<string, readonly string[]>;
  resourceName: string;
  tokenCache: number;
  rolesClaim: string;
  clockToleranceMs: number;
}

/** The settings, or undefined when OAuth is off (`fw.mcp.oauth.authorization-servers` empty). Throws a ConfigError on a bad value. */
export function readOAuthSettings(fw: Framework): OAuthSettings | undefined {
  fw.config.declare(MCP_OAUTH_CONFIG);
  fw.config.declare(AUTH_CONFIG);
  const servers = fw.config
    .get('fw.mcp.oauth.authorization-servers')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (servers.length === 0) return undefined;
  for (const s of servers) {
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      throw new ConfigError(`fw.mcp.oauth.authorization-servers: '${s}' is not an absolute URL`);
    }
    // RFC 8414 §2: the issuer is an https URL with no query or fragment (http kept for loopback development).
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash) {
      throw new ConfigError(`fw.mcp.oauth.authorization-servers: '${s}' must be an http(s) URL without query or fragment`);
    }
  }
  const jwksUrl = fw.config.get('fw.mcp.oauth.jwks-url').trim();
  if (jwksUrl) {
    try {
      new URL(jwksUrl);
    } catch {
      throw new ConfigError(`fw.mcp.oauth.jwks-url: '${jwksUrl}' is not an absolute URL`);
    }
  }
  return {
    authorizationServers: servers,
    jwksUrl,
    scopes: parseScopes(fw.config.get('fw.mcp.oauth.scopes')),
    toolScopes: parseToolScopes(fw.config.get('fw.mcp.oauth.tool-scopes')),
    resourceName: fw.config.get('fw.mcp.oauth.resource-name'),
    tokenCache: Math.max(0, Math.floor(fw.config.get('fw.mcp.oauth.token-cache'))),
    rolesClaim: fw.config.get('fw.auth.jwt.roles-claim'),
    clockToleranceMs: fw.config.get('fw.auth.jwt.clock-tolerance'),
  };
}
