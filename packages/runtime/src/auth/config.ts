import { ConfigError, defineConfig } from '../config.js';
import type { Framework } from '../framework.js';
import { AuthenticationError, chainAuthenticators, type Authenticator } from './authenticator.js';
import { jwtBearer } from './jwt.js';
import { parseTokenEntries, staticTokens } from './static-tokens.js';
import { tokenWeakness } from './token-strength.js';

/** The framework-wide authentication keys (docs/security.md, "Authentication and roles"). */
export const AUTH_CONFIG = defineConfig({
  'fw.auth.tokens': {
    type: 'string',
    default: '',
    description:
      'Static bearer tokens: comma-separated `name:role[+role]:token` entries (roles `viewer`, `operator`, `admin`); each token at least 16 characters. See [security](security.md#authentication-and-roles)',
  },
  'fw.auth.jwt.jwks-url': {
    type: 'string',
    default: '',
    description: 'JWKS URL of the JWT issuer; setting it turns on JWT bearer authentication (issuer and audience are then required)',
  },
  'fw.auth.jwt.issuer': { type: 'string', default: '', description: 'Required `iss` of JWT bearer tokens' },
  'fw.auth.jwt.audience': { type: 'string', default: '', description: 'Required `aud` of JWT bearer tokens' },
  'fw.auth.jwt.roles-claim': {
    type: 'string',
    default: 'roles',
    description: "JWT claim holding the principal's roles (an array or a space-separated string)",
  },
  'fw.auth.jwt.clock-tolerance': { type: 'duration', default: 30_000, description: "Clock skew allowed on a JWT's `exp` and `nbf`" },
});
/** The app's own authenticator: `new Framework({ authenticator })` or the service `'authenticator'`. */
export const AUTHENTICATOR_SERVICE = 'authenticator' as const;

const BUILT = new WeakMap<Framework, Authenticator | null>();

/**
 * The framework's authenticator, shared by every surface that authenticates (admin plane, agent
 * endpoints): the app's custom function first, then the static tokens of `fw.auth.tokens`, then
 * JWT bearer when `fw.auth.jwt.jwks-url` is set. Undefined when none is configured. Built once per
 * framework (the JWKS cache is shared); invalid settings throw a ConfigError at the first call.
 */
export function frameworkAuthenticator(fw: Framework): Authenticator | undefined {
  const cached = BUILT.get(fw);
  if (cached !== undefined) return cached ?? undefined;
  const built = build(fw);
  BUILT.set(fw, built ?? null);
  return built;
}

function build(fw: Framework): Authenticator | undefined {
  fw.config.declare(AUTH_CONFIG);
  const get = fw.config.get.bind(fw.config);
  const list: Authenticator[] = [];
  const custom = fw.config.option('authenticator') ?? fw.services.get(AUTHENTICATOR_SERVICE);
  if (custom !== undefined) {
    if (typeof custom !== 'function') throw new ConfigError('the authenticator option must be a function (req, url) => principal');
    list.push(custom);
  }
  const tokens = parseTokenEntries(get('fw.auth.tokens'));
  for (const { name, token } of tokens) {
    const weak = tokenWeakness(token);
    if (weak) throw fw.config.invalid('fw.auth.tokens', `has a token that ${weak}, the one of '${name}'`);
  }
  if (tokens.length > 0) list.push(staticTokens(tokens));
  const jwksUrl = get('fw.auth.jwt.jwks-url');
  if (jwksUrl) {
    const issuer = get('fw.auth.jwt.issuer');
    const audience = get('fw.auth.jwt.audience');
    if (!issuer || !audience) throw new ConfigError('JWT authentication needs fw.auth.jwt.issuer and fw.auth.jwt.audience');
    list.push(
      jwtBearer({
        jwksUrl,
        issuer,
        audience,
        rolesClaim: get('fw.auth.jwt.roles-claim'),
        clockToleranceMs: get('fw.auth.jwt.clock-tolerance'),
      }),
    );
  }
  if (list.length === 0) return undefined;
  const chain = list.length === 1 && !custom ? list[0]! : chainAuthenticators(list);
  // A revoked credential (fw.credentials.revoke) is refused here, once, for every surface.
  return async (req, url, context) => {
    const principal = await chain(req, url, context);
    if (principal && fw.credentials.isRevoked(principal)) throw new AuthenticationError('the credential was revoked');
    return principal;
  };
}

/** What is configured, for agent cards (`securitySchemes`) and startup printouts. */
export function authenticationSchemes(fw: Framework): {
  bearer: boolean;
  jwt: { issuer: string; jwksUrl: string } | undefined;
  custom: boolean;
} {
  fw.config.declare(AUTH_CONFIG);
  const jwksUrl = fw.config.get('fw.auth.jwt.jwks-url');
  return {
    bearer: fw.config.get('fw.auth.tokens') !== '',
    jwt: jwksUrl ? { issuer: fw.config.get('fw.auth.jwt.issuer'), jwksUrl } : undefined,
    custom: (fw.config.option('authenticator') ?? fw.services.get(AUTHENTICATOR_SERVICE)) !== undefined,
  };
}
