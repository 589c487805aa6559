/**
 * Who an A2A call is made for, carried through @a2a-js/sdk's request handler to fw's task store on
 * the `ServerCallContext` (its `state` bag: the SDK hands the same context to every
 * `TaskStore.load/save/list` of the call). The SDK's own `user` is left unset on purpose: the SDK
 * scopes its event buses by it, and the admin plane's cancel (an operator, no user) must reach
 * the bus of any task to abort its run.
 */
import { ServerCallContext } from '@a2a-js/sdk/server';
import type { Lease, Owner, Principal } from '@fw/runtime';

const SCOPE = 'fw.a2a.scope';

/** An operator (the admin plane): sees and cancels every task. */
export interface OperatorScope {
  readonly operator: true;
}

/** A protocol client. */
export interface CallerScope {
  readonly operator: false;
  /** The authenticated principal; undefined for an anonymous caller. */
  readonly principal: Principal | undefined;
  /** The owner a task this call creates gets (decided before the SDK runs, see A2AEndpoint). */
  owner: Owner | undefined;
  /** The caller's share of the live tasks, taken before a send; the task that the send creates keeps it. */
  lease: Lease | undefined;
}

export type CallScope = OperatorScope | CallerScope;

export function callContext(scope: CallScope, requestedVersion?: string): ServerCallContext {
  return new ServerCallContext({ ...(requestedVersion ? { requestedVersion } : {}), state: new Map([[SCOPE, scope]]) });
}

/** The scope of a call; undefined for a context fw did not make (it then reaches no task). */
export function scopeOf(ctx: ServerCallContext | undefined): CallScope | undefined {
  return ctx?.state.get(SCOPE) as CallScope | undefined;
}

/** Hands the call's lease to the task it created (once); the store releases it when the task ends. */
export function takeLease(scope: CallScope | undefined): Lease | undefined {
  if (!scope || scope.operator) return undefined;
  const lease = scope.lease;
  scope.lease = undefined;
  return lease;
}
