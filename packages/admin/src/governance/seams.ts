/** What governance adds to the kernel's event map: kill-switch changes (on every node that adopts one), policy reloads and denials. */
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
    /** A reload applied a policy file on this node. */
    PoliciesReloaded: {
      file: string;
      digest: string;
      policies: string[];
      /** The ids of the file's budgets (budgets change only with the file). */
      budgets: string[];
      operator: string | null;
      node: string;
    };
    /** A policy denied a call (`deny`), or would have in dry-run mode (`dry-run`). */
    PolicyDenied: {
      policy: string;
      decision: 'deny' | 'dry-run';
      reason: string;
      action: string;
      agent: string;
      source: 'run' | 'check';
      tool?: string;
      node: string;
    };
  }
}

export {};
