/**
 * Level-1 URI templates (`fw://rooms/{roomId}`): each `{name}` matches one non-empty run of
 * characters up to the next `/`, `?` or `#`. That is what resource URIs need; nothing more.
 */
export class UriTemplate {
  readonly variables: readonly string[];
  private readonly regex: RegExp;

  constructor(readonly template: string) {
    const vars: string[] = [];
    let pattern = '^';
    let last = 0;
    for (const m of template.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
      pattern += escape(template.slice(last, m.index)) + '([^/?#]+)';
      vars.push(m[1] as string);
      last = (m.index ?? 0) + m[0].length;
    }
    pattern += escape(template.slice(last)) + '$';
    this.variables = vars;
    this.regex = new RegExp(pattern);
  }

  static isTemplate(uri: string): boolean {
    return /\{[A-Za-z_][A-Za-z0-9_]*\}/.test(uri);
  }

  /** The decoded variables when `uri` matches, else undefined. */
  match(uri: string): Record<string, string> | undefined {
    const m = this.regex.exec(uri);
    if (!m) return undefined;
    const out: Record<string, string> = {};
    this.variables.forEach((v, i) => {
      const raw = m[i + 1] as string;
      try {
        out[v] = decodeURIComponent(raw);
      } catch {
        out[v] = raw;
      }
    });
    return out;
  }
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
