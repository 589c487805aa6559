import type { IncomingMessage } from 'node:http';
import {
  AuthenticationError,
  KeysUnavailableError,
  bearerCredential,
  jwtBearer,
  requestHost,
  requestProtocol,
  type Authenticator,
  type Framework,
  type Principal,
} from '@fw/runtime';
import { discoverJwksUri } from './authorization-server-metadata.js';
import { OAuthRefusal } from './challenge.js';
import { readOAuthSettings, type OAuthSettings } from './config.js';
import { grantedScopes, missingScopes } from './scopes.js';
import { VerifiedTokenCache } from './token-cache.js';

/** The RFC 9728 §3 well-known prefix; an endpoint's document is at this prefix + the endpoint's path. */
export const RESOURCE_METADATA_PREFIX = '/.well-known/oauth-protected-resource';

/** RFC 9728 §2 protected resource metadata, as fw publishes it. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: ['header'];
  resource_name?: string;
}

/**
 * The framework's OAuth 2.1 resource server: the settings and the one token verifier (the
 * runtime's `jwtBearer`, `jose` against the authorization server's JWKS) that every protected MCP
 * endpoint shares, so the signing keys are fetched and cached once.
 */
export class OAuthResourceServer {
  private readonly verify: Authenticator;
  readonly verified: VerifiedTokenCache;
  /** Whether `fw.public-url` is set (read once: it names the canonical URL of every endpoint). */
  readonly publicUrl: boolean;

  constructor(
    readonly fw: Framework,
    readonly settings: OAuthSettings,
  ) {
    const first = settings.authorizationServers[0]!;
    this.verify = jwtBearer({
      jwksUrl: settings.jwksUrl || (() => discoverJwksUri(first)),
      issuer: settings.authorizationServers,
      // Never used: every call names the endpoint's resource as the audience (RFC 8707); an empty
      // list matches no token, so a call that forgot it fails closed.
      audience: [],
      rolesClaim: settings.rolesClaim,
      clockToleranceMs: settings.clockToleranceMs,
    });
    this.verified = new VerifiedTokenCache(settings.tokenCache, settings.clockToleranceMs);
    this.publicUrl = fw.config.get('fw.public-url') !== '';
  }

  /**
   * Verifies `token` (the bearer credential of `req`) for `audience`; undefined when it is not a
   * JWT. A token verified before for the same audience and not yet expired is not checked again.
   */
  async verifyFor(req: IncomingMessage, token: string, audience: string): Promise<Principal | undefined> {
    const key = this.verified.key(audience, token);
    const known = this.verified.get(key);
    if (known) return known;
    const principal = await this.verify(req, new URL(req.url ?? '/', 'http://localhost'), { audience });
    if (principal) this.verified.set(key, principal);
    return principal;
  }
}

const SERVERS = new WeakMap<Framework, OAuthResourceServer | null>();

/** The framework's resource server, or undefined when `fw.mcp.oauth.authorization-servers` is empty. */
export function oauthResourceServer(fw: Framework): OAuthResourceServer | undefined {
  const known = SERVERS.get(fw);
  if (known !== undefined) return known ?? undefined;
  const settings = readOAuthSettings(fw);
  const server = settings ? new OAuthResourceServer(fw, settings) : undefined;
  SERVERS.set(fw, server ?? null);
  return server;
}

/**
 * One MCP endpoint as an OAuth protected resource (MCP basic/authorization): its canonical URL
 * (the RFC 8707 audience its tokens must carry), its RFC 9728 metadata, and the 401/403 answers.
 */
export class ProtectedResource {
  private readonly verified = new WeakMap<IncomingMessage, Promise<Principal>>();

  constructor(
    private readonly server: OAuthResourceServer,
    readonly path: string,
    private readonly serverName: () => string,
    /** The scopes a tool declares itself (`scopes` of its definition), or undefined for an unknown tool. */
    private readonly declaredToolScopes: (tool: string) => readonly string[] | undefined,
    /** Every scope the endpoint's tools need, for `scopes_supported`. */
    private readonly allToolScopes: () => readonly string[],
  ) {}

  get settings(): OAuthSettings {
    return this.server.settings;
  }

  /**
   * The canonical URL of this endpoint (MCP basic/authorization "Canonical Server URI"):
   * `fw.public-url` + path, else the scheme and Host the client used (the framework's screening
   * already refused a Host it does not serve, so a rebinding page cannot pick the audience).
   */
  resourceUrl(req: IncomingMessage): string {
    return `${this.base(req)}${this.path}`;
  }

  metadataUrl(req: IncomingMessage): string {
    return `${this.base(req)}${RESOURCE_METADATA_PREFIX}${this.path}`;
  }

  private base(req: IncomingMessage): string {
    if (this.server.publicUrl) return this.server.fw.security.baseUrl(req);
    const host = requestHost(req);
    return host ? `${requestProtocol(req)}://${host}` : this.server.fw.security.baseUrl(req);
  }

  metadata(req: IncomingMessage): ProtectedResourceMetadata {
    const s = this.settings;
    const scopes = [...new Set([...s.scopes, ...this.allToolScopes()])];
    return {
      resource: this.resourceUrl(req),
      authorization_servers: [...s.authorizationServers],
      scopes_supported: scopes,
      bearer_methods_supported: ['header'],
      resource_name: s.resourceName || this.serverName(),
    };
  }

  /** The scopes a tools/call of `tool` needs: the endpoint's own plus the tool's (config first). */
  requiredFor(tool: string): string[] {
    const own = this.settings.toolScopes.get(tool) ?? this.declaredToolScopes(tool) ?? [];
    return [...new Set([...this.settings.scopes, ...own])];
  }

  /**
   * The principal of `req`'s access token, or an OAuthRefusal: 401 without a token (a challenge
   * with no error code, RFC 6750 §3.1) or with an invalid one (`invalid_token`: bad signature,
   * wrong issuer, wrong audience, expired); 403 `insufficient_scope` when it lacks the endpoint's
   * scopes. Only the `Authorization` header is read, never the query (basic/authorization
   * "Token Requirements"). Verified once per request, however many layers ask.
   */
  authenticate(req: IncomingMessage): Promise<Principal> {
    let pending = this.verified.get(req);
    if (!pending) {
      pending = this.check(req);
      this.verified.set(req, pending);
    }
    return pending;
  }

  private async check(req: IncomingMessage): Promise<Principal> {
    const base = this.base(req);
    const resourceMetadata = `${base}${RESOURCE_METADATA_PREFIX}${this.path}`;
    const scope = this.settings.scopes;
    const token = bearerCredential(req, new URL(req.url ?? '/', 'http://localhost'));
    if (token === undefined) {
      throw new OAuthRefusal(
        401,
        `this MCP server requires an OAuth access token (Authorization: Bearer …); its authorization servers are listed at ${resourceMetadata}`,
        { resourceMetadata, scope },
      );
    }
    let principal: Principal | undefined;
    try {
      principal = await this.server.verifyFor(req, token, `${base}${this.path}`);
    } catch (err) {
      // The authorization server's keys are out of reach: a 503, not a challenge (the token may be fine).
      if (err instanceof KeysUnavailableError) throw err;
      const detail = err instanceof AuthenticationError ? err.message : 'invalid token: could not be verified';
      throw new OAuthRefusal(401, detail, { resourceMetadata, scope, error: 'invalid_token', errorDescription: detail });
    }
    if (!principal) {
      const detail = 'invalid token: not a JWT access token';
      throw new OAuthRefusal(401, detail, { resourceMetadata, scope, error: 'invalid_token', errorDescription: detail });
    }
    const lacking = missingScopes(grantedScopes(principal), scope);
    if (lacking.length > 0) {
      const detail = `the access token lacks the scope(s) ${lacking.join(' ')} this MCP server requires`;
      throw new OAuthRefusal(403, detail, { resourceMetadata, scope, error: 'insufficient_scope', errorDescription: detail });
    }
    return principal;
  }

  /**
   * A 403 `insufficient_scope` refusal when `principal` may not call `tool`, naming every scope
   * the call needs in one challenge (basic/authorization "Runtime Insufficient Scope Errors").
   */
  toolRefusal(
    req: IncomingMessage | undefined,
    principal: Principal | undefined,
    tool: string,
    resourceMetadata?: string,
  ): OAuthRefusal | undefined {
    const required = this.requiredFor(tool);
    const lacking = missingScopes(grantedScopes(principal), required);
    if (lacking.length === 0) return undefined;
    const detail = `the tool '${tool}' needs the scope(s) ${lacking.join(' ')}, which the access token lacks`;
    const url = resourceMetadata ?? (req ? this.metadataUrl(req) : `${RESOURCE_METADATA_PREFIX}${this.path}`);
    return new OAuthRefusal(403, detail, { resourceMetadata: url, scope: required, error: 'insufficient_scope', errorDescription: detail });
  }
}
