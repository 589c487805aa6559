/**
 * The optional packages an AI SDK runtime loads on first use, and which of them this install
 * lacks. Resolved from here, the way `ai-sdk.ts` imports them, so the answer is the one the first
 * run would meet. Used at start (the agent module reports what is missing with one command) and
 * by the runtime's own error (it names every missing package, not only the first it tripped on).
 */
export const AI_SDK_PEERS = ['ai'] as const;
export const OPENAI_PEERS = ['ai', '@ai-sdk/openai'] as const;

/** Those of `peers` that cannot be resolved (not installed), in the order given. */
export function missingPeers(peers: readonly string[]): string[] {
  return peers.filter((peer) => {
    try {
      import.meta.resolve(peer);
      return false;
    } catch (err) {
      // Only "not installed" counts; a package that is there but broken fails on import with its own error.
      const code = (err as { code?: string }).code;
      return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
    }
  });
}

/** `npm install ai @ai-sdk/openai`: the one command that installs every package given. */
export function installCommand(peers: readonly string[]): string {
  return `npm install ${peers.join(' ')}`;
}
