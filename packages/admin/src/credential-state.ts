import { expiryOf, type CredentialEnd, type Framework, type Principal } from '@fw/runtime';

/**
 * Whether the credential a principal was authenticated with has stopped being good since: its
 * expiry passed (`expiresAt`, or a JWT's `exp`) or an operator revoked it (`fw.credentials`).
 * For surfaces that authenticated once and act later (an MCP session's tool calls): each call
 * checks again instead of trusting the session's start.
 */
export function credentialEnd(fw: Framework, principal: Principal | undefined, now = Date.now()): CredentialEnd | undefined {
  if (!principal) return undefined;
  if (fw.credentials.isRevoked(principal)) return 'revoked';
  const expiresAt = expiryOf(principal);
  return expiresAt !== undefined && expiresAt <= now ? 'expired' : undefined;
}
