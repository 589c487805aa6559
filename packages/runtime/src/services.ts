/**
 * A small typed service registry on the framework. Modules publish their read/control interface
 * under a well-known name (`'mcp'`, `'agent'`, `'admin'`, `'cluster'`) and look each other up
 * lazily, at request time, so that install order does not matter and an absent module is simply
 * `undefined` (its admin views are empty, never an error).
 */
export class Services {
  private readonly map = new Map<string, unknown>();

  provide<T>(name: string, service: T): void {
    this.map.set(name, service);
  }

  get<T>(name: string): T | undefined {
    return this.map.get(name) as T | undefined;
  }

  names(): string[] {
    return [...this.map.keys()];
  }
}
