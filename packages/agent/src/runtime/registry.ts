import type { ModelProvider } from './port.js';

/**
 * The runtimes known to the agent module; the active one is the available one with the highest
 * priority. A runtime's name is its identity (the admin plane lists runtimes by name and an agent
 * asks for one by name): adding a runtime with a name already registered replaces that one, in
 * its place, instead of listing the name twice.
 */
export class ProviderRegistry {
  private readonly list: ModelProvider[] = [];

  add(runtime: ModelProvider): () => void {
    const same = this.list.findIndex((r) => r.name === runtime.name);
    if (same >= 0) this.list[same] = runtime;
    else this.list.push(runtime);
    return () => {
      const i = this.list.indexOf(runtime);
      if (i >= 0) this.list.splice(i, 1);
    };
  }

  all(): readonly ModelProvider[] {
    return this.list;
  }

  active(): ModelProvider | undefined {
    let best: ModelProvider | undefined;
    for (const r of this.list) {
      if (!safeAvailable(r)) continue;
      if (!best || r.priority > best.priority) best = r;
    }
    return best;
  }
}

function safeAvailable(r: ModelProvider): boolean {
  try {
    return r.isAvailable();
  } catch {
    return false;
  }
}
