import type { Handler, HandlerOptions, Interceptor } from './model.js';
import { PathPattern } from './http/path-pattern.js';

/** A registered handler: its full path pattern (with the framework path) and interceptor chain. */
export class HandlerEntry {
  readonly pattern: PathPattern;
  resourceCount = 0;
  private cached: Interceptor[] = [];
  private cachedVersion = -1;

  constructor(
    readonly path: string,
    readonly handler: Handler,
    readonly options: HandlerOptions,
    private readonly globals: { list: readonly Interceptor[]; version: number },
  ) {
    this.pattern = new PathPattern(path);
  }

  /** Global interceptors first, then the handler's own, in registration order. Cached. */
  chain(): readonly Interceptor[] {
    if (this.cachedVersion !== this.globals.version) {
      this.cached = [...this.globals.list, ...(this.options.interceptors ?? [])];
      this.cachedVersion = this.globals.version;
    }
    return this.cached;
  }
}
