/**
 * Path patterns with named segments: `/chat/{room}` matches `/chat/lobby` with `{ room: 'lobby' }`.
 * A trailing `{name*}` captures the rest of the path (slashes included). Compiled once.
 */
export class PathPattern {
  readonly source: string;
  readonly names: readonly string[];
  private readonly regex: RegExp;

  constructor(source: string) {
    if (!source.startsWith('/')) throw new Error(`path pattern must start with '/': ${source}`);
    this.source = source;
    const names: string[] = [];
    let re = '';
    let i = 0;
    while (i < source.length) {
      const open = source.indexOf('{', i);
      if (open === -1) {
        re += escapeRegExp(source.slice(i));
        break;
      }
      const close = source.indexOf('}', open);
      if (close === -1) throw new Error(`unclosed '{' in path pattern: ${source}`);
      re += escapeRegExp(source.slice(i, open));
      let name = source.slice(open + 1, close);
      const rest = name.endsWith('*');
      if (rest) name = name.slice(0, -1);
      names.push(name);
      re += rest ? '(.+)' : '([^/]+)';
      i = close + 1;
    }
    this.names = names;
    this.regex = new RegExp(`^${re}/?$`);
  }

  /** Returns the decoded parameters, or undefined when the path does not match. */
  match(path: string): Record<string, string> | undefined {
    const m = this.regex.exec(path);
    if (!m) return undefined;
    // Resources keep their params: a pattern without names shares one empty object among all of them.
    if (this.names.length === 0) return NO_PARAMS;
    const params: Record<string, string> = {};
    for (let k = 0; k < this.names.length; k++) {
      const raw = m[k + 1] ?? '';
      let value: string;
      try {
        value = decodeURIComponent(raw);
      } catch {
        return undefined;
      }
      params[this.names[k]!] = value;
    }
    return params;
  }

  /** True when the pattern has no parameters (exact routes win over patterned ones). */
  get isStatic(): boolean {
    return this.names.length === 0;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
