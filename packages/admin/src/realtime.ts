import type { Broadcaster, BroadcasterOptions, Framework, Handler, HandlerOptions, RuntimeView } from '@fw/runtime';

/**
 * The parts of the runtime's real-time layer the admin plane uses, typed structurally so that
 * the admin module only depends on the contracts of model.ts.
 */
export type RealtimeFramework = Framework & {
  readonly runtime?: RuntimeView;
  readonly broadcasters?: {
    create(id: string, options?: BroadcasterOptions): Broadcaster;
  };
  handle?(path: string, handler: Handler, options?: HandlerOptions): unknown;
};
