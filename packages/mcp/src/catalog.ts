import { McpRegistry, type PromptEntry, type RegistryListener, type ResourceEntry, type ToolEntry, type ToolRegistry } from './registry.js';

/**
 * What one endpoint serves: the registries of its @McpServer classes, then the process-wide
 * McpRegistry. The first registry that has a name wins.
 */
export class Catalog {
  private readonly list: ToolRegistry[];
  private readonly listeners = new Map<RegistryListener, Map<ToolRegistry, () => void>>();

  constructor(registries: readonly ToolRegistry[]) {
    this.list = [...registries];
  }

  get registries(): readonly ToolRegistry[] {
    return this.list;
  }

  /**
   * Adds a registry in front of the process-wide one when that is last (another class mounted on
   * the same path), else at the end. Connected sessions are told about the new entries.
   */
  add(registry: ToolRegistry): void {
    if (this.list.includes(registry)) return;
    const last = this.list[this.list.length - 1];
    if (last && last === McpRegistry.get()) this.list.splice(this.list.length - 1, 0, registry);
    else this.list.push(registry);
    for (const [l, offs] of this.listeners) offs.set(registry, registry.listen(l));
    this.announce(registry);
  }

  /** Stops serving a registry (e.g. an endpoint that must not serve the process-wide one). */
  remove(registry: ToolRegistry): boolean {
    const i = this.list.indexOf(registry);
    if (i < 0) return false;
    this.list.splice(i, 1);
    for (const offs of this.listeners.values()) {
      offs.get(registry)?.();
      offs.delete(registry);
    }
    this.announce(registry);
    return true;
  }

  private announce(registry: ToolRegistry): void {
    for (const l of this.listeners.keys()) {
      if (registry.tools().length) l.listChanged?.('tools');
      if (registry.resources().length) l.listChanged?.('resources');
      if (registry.prompts().length) l.listChanged?.('prompts');
    }
  }

  tools(): ToolEntry[] {
    return dedupe(this.list.flatMap((r) => r.tools()), (t) => t.name);
  }

  tool(name: string): ToolEntry | undefined {
    for (const r of this.list) {
      const t = r.tool(name);
      if (t) return t;
    }
    return undefined;
  }

  /** Direct resources (no template variables). */
  resources(): ResourceEntry[] {
    return dedupe(this.list.flatMap((r) => r.resources()), (e) => e.uri).filter((e) => !e.template);
  }

  templates(): ResourceEntry[] {
    return dedupe(this.list.flatMap((r) => r.resources()), (e) => e.uri).filter((e) => e.template);
  }

  /** The resource serving `uri`: an exact URI first, then the first matching template. */
  findResource(uri: string): { entry: ResourceEntry; vars: Record<string, string> } | undefined {
    for (const r of this.list) {
      const e = r.resourceByUri(uri);
      if (e && !e.template) return { entry: e, vars: {} };
    }
    for (const e of this.templates()) {
      const vars = e.template?.match(uri);
      if (vars) return { entry: e, vars };
    }
    return undefined;
  }

  prompts(): PromptEntry[] {
    return dedupe(this.list.flatMap((r) => r.prompts()), (p) => p.name);
  }

  prompt(name: string): PromptEntry | undefined {
    for (const r of this.list) {
      const p = r.prompt(name);
      if (p) return p;
    }
    return undefined;
  }

  listen(listener: RegistryListener): () => void {
    this.listeners.set(listener, new Map(this.list.map((r) => [r, r.listen(listener)])));
    return () => {
      this.listeners.get(listener)?.forEach((off) => off());
      this.listeners.delete(listener);
    };
  }
}

function dedupe<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((t) => {
    const k = key(t);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
