import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  authenticationSchemes,
  AuthenticationError,
  frameworkAuthenticator,
  FwError,
  sendProblem,
  type AuthContext,
  type Authenticator,
  type Framework,
  type Principal,
} from '@fw/runtime';

/** The agent endpoints' own authenticator, when an app wants one apart from fw.auth.*: the service `'agent.authenticator'`. */
export const AGENT_AUTHENTICATOR_SERVICE = 'agent.authenticator' as const;

/** The A2A 1.0 card's security fields, in the protocol's JSON form (a2a.proto, AgentCard §securitySchemes). */
export interface CardSecurity {
  securitySchemes: Record<string, { httpAuthSecurityScheme: { description: string; scheme: string; bearerFormat: string } }>;
  securityRequirements: { schemes: Record<string, { list: string[] }> }[];
}

/**
 * Who may call an agent (A2A, AG-UI, per-agent MCP, chat sessions): when an authenticator is configured (the
 * app's own for agents, else the framework's fw.auth.*), every call needs a principal, unless
 * `fw.agent.auth` is `none`. The agent card stays public and says which credential to bring.
 */
export class AgentAuth {
  private readonly authenticator: Authenticator | undefined;

  constructor(
    private readonly fw: Framework,
    own?: Authenticator,
  ) {
    const mode = fw.config.get('fw.agent.auth');
    if (mode !== 'auto' && mode !== 'none')
      throw new FwError('invalid_config', `fw.agent.auth must be 'auto' or 'none', got '${mode}'`, 500);
    this.authenticator = mode === 'none' ? undefined : (own ?? fw.services.get(AGENT_AUTHENTICATOR_SERVICE) ?? frameworkAuthenticator(fw));
    this.custom = own !== undefined || fw.services.get(AGENT_AUTHENTICATOR_SERVICE) !== undefined;
  }

  private readonly custom: boolean;

  get required(): boolean {
    return this.authenticator !== undefined;
  }

  /**
   * The caller's principal; throws an FwError (401, with `WWW-Authenticate` in its details) when
   * a principal is required and the request has none or a wrong one.
   */
  async check(req: IncomingMessage, context?: AuthContext): Promise<Principal | undefined> {
    if (!this.authenticator) return undefined;
    let principal: Principal | undefined;
    try {
      principal = await this.authenticator(req, new URL(req.url ?? '/', 'http://localhost'), context);
    } catch (err) {
      throw err instanceof AuthenticationError ? err : new AuthenticationError('the credential could not be verified');
    }
    if (!principal) throw new AuthenticationError('this agent requires authentication (Authorization: Bearer <token>)');
    return principal;
  }

  /**
   * What the card advertises: one scheme per configured mechanism, any one of which is enough
   * (each requirement lists one scheme). Nothing when agents are public. A custom authenticator
   * is not described (fw cannot know its credential).
   */
  cardSecurity(): CardSecurity {
    const out: CardSecurity = { securitySchemes: {}, securityRequirements: [] };
    if (!this.required || this.custom) return out;
    const configured = authenticationSchemes(this.fw);
    if (configured.bearer) {
      out.securitySchemes.bearer = {
        httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: '', description: 'A static bearer token issued by the operator' },
      };
    }
    if (configured.jwt) {
      out.securitySchemes.jwt = {
        httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT', description: `A JWT issued by ${configured.jwt.issuer}` },
      };
    }
    for (const name of Object.keys(out.securitySchemes)) out.securityRequirements.push({ schemes: { [name]: { list: [] } } });
    return out;
  }

  /** The same in the A2A 0.3 (OpenAPI) shape. */
  legacyCardSecurity(): { securitySchemes?: Record<string, object>; security?: Record<string, string[]>[] } {
    const modern = this.cardSecurity();
    const names = Object.keys(modern.securitySchemes);
    if (names.length === 0) return {};
    const securitySchemes: Record<string, object> = {};
    for (const name of names) {
      const s = modern.securitySchemes[name]!.httpAuthSecurityScheme;
      securitySchemes[name] = {
        type: 'http',
        scheme: 'bearer',
        ...(s.bearerFormat ? { bearerFormat: s.bearerFormat } : {}),
        description: s.description,
      };
    }
    return { securitySchemes, security: names.map((n) => ({ [n]: [] })) };
  }
}

/** The challenge sent with a 401 (RFC 6750 §3). */
export const AGENT_CHALLENGE = { 'www-authenticate': 'Bearer realm="fw-agent"' };

/**
 * Refuses a request the agent auth does not admit: answers 401 (problem+json with the challenge)
 * and returns false. The body is drained so the connection stays usable.
 */
export async function admitAgentCall(auth: AgentAuth | undefined, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  return (await admitAgentCaller(auth, req, res)) !== undefined;
}

/**
 * `admitAgentCall` that also says who was admitted: `{ principal }` (undefined when agents are
 * public), or undefined after answering the refusal. Every per-caller decision (the owner of the
 * work, its share of a cap, its prompt rate) starts from this principal.
 */
export async function admitAgentCaller(
  auth: AgentAuth | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ principal: Principal | undefined } | undefined> {
  if (!auth?.required) return { principal: undefined };
  try {
    return { principal: await auth.check(req) };
  } catch (err) {
    req.resume();
    const e = err instanceof FwError ? err : new AuthenticationError('the credential could not be verified');
    sendProblem(res, e.status, e.code, e.message, undefined, e.status === 401 ? AGENT_CHALLENGE : undefined);
    return undefined;
  }
}
