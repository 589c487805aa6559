/** One URL a module serves that a person would want to open or paste somewhere. */
export interface AnnouncedEndpoint {
  /** What it is, as shown at start: `dashboard`, `admin MCP`, `MCP chat-tools`, `agent planner`. */
  name: string;
  /** Its path on the server (`/fw/admin/`, `/mcp`, `/fw/agent/planner/a2a/.well-known/agent-card.json`). */
  path: string;
}

/**
 * The fw URLs worth telling a person about, registered by the modules that serve them (the
 * runtime names no module): `listen()` and an attached server log them once when they start
 * listening, so an app says where its dashboard, MCP and agent endpoints are without a banner of
 * its own. In registration order; a path registered twice is listed once.
 */
export class Endpoints {
  private readonly entries = new Map<string, AnnouncedEndpoint>();

  /** Adds an endpoint; returns a function that removes it (a module that unmounts). */
  add(name: string, path: string): () => void {
    const entry = { name, path };
    this.entries.set(path, entry);
    return () => {
      if (this.entries.get(path) === entry) this.entries.delete(path);
    };
  }

  list(): AnnouncedEndpoint[] {
    return [...this.entries.values()];
  }
}
