import type { AiRuntime } from './port.js';

/** The runtimes known to the agent module; the active one is the available one with the highest priority. */
export class RuntimeRegistry {
  private readonly list: AiRuntime[] = [];

  add(runtime: AiRuntime): () => void {
    this.list.push(runtime);
    return () => {
      const i = this.list.indexOf(runtime);
      if (i >= 0) this.list.splice(i, 1);
    };
  }

  all(): readonly AiRuntime[] {
    return this.list;
  }

  active(): AiRuntime | undefined {
    let best: AiRuntime | undefined;
    for (const r of this.list) {
      if (!safeAvailable(r)) continue;
      if (!best || r.priority > best.priority) best = r;
    }
    return best;
  }
}

function safeAvailable(r: AiRuntime): boolean {
  try {
    return r.isAvailable();
  } catch {
    return false;
  }
}
