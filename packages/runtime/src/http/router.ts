import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { PathPattern } from './path-pattern.js';

export interface RouteContext {
  /** Decoded path parameters of the matched pattern. */
  params: Record<string, string>;
  /** The parsed request URL (path and query). */
  url: URL;
}

export type HttpRouteHandler = (req: IncomingMessage, res: ServerResponse, ctx: RouteContext) => unknown;
export type UpgradeRouteHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, ctx: RouteContext) => unknown;

/** `*` matches any method; the route then sees every method and answers 405 itself where it must. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'HEAD' | '*';

interface Entry<H> {
  method: Method;
  pattern: PathPattern;
  handler: H;
}

export type Match<H> =
  | { kind: 'found'; handler: H; params: Record<string, string>; route: string }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'none' };

/**
 * Routes of one kind (HTTP or upgrade). Static routes are looked up in a map; patterned routes
 * are tried in registration order. fw owns only the paths registered here: anything else is
 * left to the application that fw is attached to.
 */
export class RouteTable<H> {
  private readonly exact = new Map<string, Entry<H>[]>();
  private readonly patterned: Entry<H>[] = [];

  add(method: Method, path: string, handler: H): () => void {
    const entry: Entry<H> = { method, pattern: new PathPattern(path), handler };
    if (entry.pattern.isStatic) {
      const key = normalize(path);
      const list = this.exact.get(key) ?? [];
      list.push(entry);
      this.exact.set(key, list);
    } else {
      this.patterned.push(entry);
    }
    return () => this.remove(entry);
  }

  match(method: string, path: string): Match<H> {
    const allow = new Set<string>();
    const list = this.exact.get(normalize(path));
    if (list) {
      for (const e of list) {
        if (e.method === '*' || e.method === method || (method === 'HEAD' && e.method === 'GET')) {
          return { kind: 'found', handler: e.handler, params: NO_PARAMS, route: e.pattern.source };
        }
        allow.add(e.method);
      }
    }
    for (const e of this.patterned) {
      const params = e.pattern.match(path);
      if (!params) continue;
      if (e.method === '*' || e.method === method || (method === 'HEAD' && e.method === 'GET')) {
        return { kind: 'found', handler: e.handler, params, route: e.pattern.source };
      }
      allow.add(e.method);
    }
    return allow.size > 0 ? { kind: 'method-not-allowed', allow: [...allow] } : { kind: 'none' };
  }

  /**
   * The methods registered for a path (`*` routes count as GET, POST, PUT, PATCH, DELETE), or an
   * empty list when the path is not one of these routes. Answers CORS preflights.
   */
  methods(path: string): string[] {
    const out = new Set<string>();
    const add = (m: Method): void => {
      if (m === '*') for (const x of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) out.add(x);
      else out.add(m);
    };
    for (const e of this.exact.get(normalize(path)) ?? []) add(e.method);
    for (const e of this.patterned) if (e.pattern.match(path)) add(e.method);
    return [...out];
  }

  /** Registered routes, for the admin plane's handler listing. */
  list(): { method: Method; path: string }[] {
    const out: { method: Method; path: string }[] = [];
    for (const list of this.exact.values()) for (const e of list) out.push({ method: e.method, path: e.pattern.source });
    for (const e of this.patterned) out.push({ method: e.method, path: e.pattern.source });
    return out;
  }

  private remove(entry: Entry<H>): void {
    if (entry.pattern.isStatic) {
      const key = normalize(entry.pattern.source);
      const list = this.exact.get(key)?.filter((e) => e !== entry) ?? [];
      if (list.length) this.exact.set(key, list);
      else this.exact.delete(key);
    } else {
      const i = this.patterned.indexOf(entry);
      if (i >= 0) this.patterned.splice(i, 1);
    }
  }
}

/** Shared by every match of a static route (resources keep their params: one object for all). */
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

function normalize(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}
