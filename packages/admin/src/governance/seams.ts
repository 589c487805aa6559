/** What governance adds to the kernel's event map: one event per kill-switch change, on every node that adopts it. */
declare module '@fw/runtime' {
  interface FwEventMap {
    KillSwitchChanged: {
      armed: boolean;
      /** `*` (the whole fleet) or one agent. */
      scope: string;
      reason: string | null;
      operator: string | null;
      armedAt: string | null;
      /** The node that adopted the change (each node announces its own). */
      node: string;
      /** Runs in flight this node stopped. */
      stopped: number;
    };
  }
}

export {};
