/** The servers bench/fanout compares (server.ts starts them), in a module of its own: importing server.ts starts one. */
export type ServerKind = 'fw' | 'fw-proto' | 'ws' | 'sio' | 'fw-bun' | 'fw-proto-bun' | 'bun';

/** The kinds whose server runs on Bun (docs/bun.md). */
export const ON_BUN: readonly ServerKind[] = ['fw-bun', 'fw-proto-bun', 'bun'];

/** Whether a kind's subscribers speak the fw protocol (`?fw=1`). */
export function fwProtocol(kind: ServerKind): boolean {
  return kind === 'fw-proto' || kind === 'fw-proto-bun';
}
