/**
 * The servers bench/fanout compares (server.ts starts them), in a module of its own: importing
 * server.ts starts one. `fw-rooms`: `fw-proto` with the subscribers' path and the publisher's path made rooms (presence, a join, a publish and a presence rule).
 * `ceiling`: raw `ws` doing the least a Node server can per delivery while coalescing like fw (server.ts).
 */
export type ServerKind = 'fw' | 'fw-proto' | 'fw-rooms' | 'ws' | 'sio' | 'ceiling' | 'fw-bun' | 'fw-proto-bun' | 'bun';

/** The kinds whose publisher connects to `/publish` rather than fw's `/fw/publish`. */
export const RAW_PUBLISH: readonly ServerKind[] = ['ws', 'ceiling', 'bun'];

/** The kinds whose server runs on Bun (docs/bun.md). */
export const ON_BUN: readonly ServerKind[] = ['fw-bun', 'fw-proto-bun', 'bun'];

/** Whether a kind's subscribers speak the fw protocol (`?fw=1`); a room's members get its presence frames too, skipped. */
export function fwProtocol(kind: ServerKind): boolean {
  return kind === 'fw-proto' || kind === 'fw-rooms' || kind === 'fw-proto-bun';
}
