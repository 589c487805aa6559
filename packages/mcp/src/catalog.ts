import type { McpSessionHandle } from './context.js';
import type { PromptEntry, RegistryListener, ResourceEntry, ToolEntry, ToolRegistry } from './registry.js';

/**
 * Decides whether a session may see (list and call) a registry's entries: the admin plane's `fw_*`
 * tools on a user's server are shown only to clients its gate would admit.
 */
export type RegistryVisibility = (session: McpSessionHandle) => boolean;

/**
 * What one endpoint serves: the registries of its @McpServer classes, then the framework's
 * McpRegistry (`shared`). The first registry that has a name wins.
 */
export class Catalog {
  private readonly list: ToolRegistry[];
  private readonly visibility = new Map<ToolRegistry, RegistryVisibility>();
  private readonly listeners = new Map<RegistryListener, Map<ToolRegistry, () => void>>();

  constructor(
    registries: readonly ToolRegistry[],
    private readonly shared?: ToolRegistry,
  ) {
    this.list = [...registries];
  }

  get registries(): readonly ToolRegistry[] {
    return this.list;
  }

  /**
   * Adds a registry in front of the framework's one when that is last (another class mounted on
   * the same path), else at the end. Connected sessions are told about the new entries. With
   * `visible`, a session sees the registry's entries only while it answers true.
   */
  add(registry: ToolRegistry, visible?: RegistryVisibility): void {
    if (visible) this.visibility.set(registry, visible);
    if (this.list.includes(registry)) return;
    const last = this.list[this.list.length - 1];
    if (last && last === this.shared) this.list.splice(this.list.length - 1, 0, registry);
    else this.list.push(registry);
    for (const [l, offs] of this.listeners) offs.set(registry, registry.listen(l));
    this.announce(registry);
  }

  /** Stops serving a registry (e.g. an endpoint that must not serve the framework's one). */
  remove(registry: ToolRegistry): boolean {
    const i = this.list.indexOf(registry);
    if (i < 0) return false;
    this.list.splice(i, 1);
    this.visibility.delete(registry);
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

  /** The registries `session` may see (all of them without a session: the admin view, tests). */
  private visibleTo(session: McpSessionHandle | undefined): ToolRegistry[] {
    if (!session || this.visibility.size === 0) return this.list;
    return this.list.filter((r) => this.visibility.get(r)?.(session) ?? true);
  }

  tools(session?: McpSessionHandle): ToolEntry[] {
    return dedupe(
      this.visibleTo(session).flatMap((r) => r.tools()),
      (t) => t.name,
    );
  }

  tool(name: string, session?: McpSessionHandle): ToolEntry | undefined {
    for (const r of this.visibleTo(session)) {
      const t = r.findTool(name);
      if (t) return t;
    }
    return undefined;
  }

  /** Direct resources (no template variables). */
  resources(session?: McpSessionHandle): ResourceEntry[] {
    return dedupe(
      this.visibleTo(session).flatMap((r) => r.resources()),
      (e) => e.uri,
    ).filter((e) => !e.template);
  }

  templates(session?: McpSessionHandle): ResourceEntry[] {
    return dedupe(
      this.visibleTo(session).flatMap((r) => r.resources()),
      (e) => e.uri,
    ).filter((e) => e.template);
  }

  /** The resource serving `uri`: an exact URI first, then the first matching template. */
  findResource(uri: string, session?: McpSessionHandle): { entry: ResourceEntry; vars: Record<string, string> } | undefined {
    for (const r of this.visibleTo(session)) {
      const e = r.resourceByUri(uri);
      if (e && !e.template) return { entry: e, vars: {} };
    }
    for (const e of this.templates(session)) {
      const vars = e.template?.match(uri);
      if (vars) return { entry: e, vars };
    }
    return undefined;
  }

  prompts(session?: McpSessionHandle): PromptEntry[] {
    return dedupe(
      this.visibleTo(session).flatMap((r) => r.prompts()),
      (p) => p.name,
    );
  }

  prompt(name: string, session?: McpSessionHandle): PromptEntry | undefined {
    for (const r of this.visibleTo(session)) {
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
