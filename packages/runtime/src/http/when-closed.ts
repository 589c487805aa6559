/**
 * Runs `fn` once a response or socket has closed: at once when it closed already. A handler that
 * awaits (an authenticator, a body, a share) before it listens for `close` would otherwise miss a
 * client that left meanwhile, and keep what it holds for that client (a share, a stream, a
 * subscription, a run) for nobody.
 */
export function whenClosed(stream: { readonly destroyed: boolean; once(event: 'close', fn: () => void): unknown }, fn: () => void): void {
  if (stream.destroyed) fn();
  else stream.once('close', fn);
}
