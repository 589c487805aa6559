/**
 * URI templates per RFC 6570, levels 1 to 3: simple `{var}`, reserved `{+path}`, fragment
 * `{#frag}`, label `{.ext}`, path segments `{/seg}`, path parameters `{;p}`, query `{?q,lang}`
 * and continuation `{&page}`, each with one or more comma-separated variables. Used both ways:
 * `expand(vars)` builds a URI (RFC 6570 §3.2), `match(uri)` recovers the variables of a
 * resource URI (the inverse fw needs for resources/read). Level-4 modifiers (`:n`, `*`) are
 * refused at construction, so a template never means something else than it says.
 */

import { McpRegistrationError } from './errors.js';
import { anyBut, capture, dot, LinearMatcher, literal, type Node, optional, repeat, sequence } from './uri-matcher.js';

interface Operator {
  first: string;
  sep: string;
  named: boolean;
  ifEmpty: string;
  reserved: boolean;
}

// RFC 6570 Appendix A.
const OPERATORS: Record<string, Operator> = {
  '': { first: '', sep: ',', named: false, ifEmpty: '', reserved: false },
  '+': { first: '', sep: ',', named: false, ifEmpty: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, ifEmpty: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, ifEmpty: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, ifEmpty: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, ifEmpty: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, ifEmpty: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, ifEmpty: '=', reserved: false },
};

const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;

type Part = { literal: string } | { op: string; vars: string[] };

/** A template fw cannot use: refused when the resource is registered. */
export class UriTemplateError extends McpRegistrationError {}

export class UriTemplate {
  readonly variables: readonly string[];
  private readonly parts: Part[];
  /** Linear in the URI's length whatever the URI (no backtracking: see uri-matcher.ts). */
  private readonly matcher: LinearMatcher;
  /** For each capture group: the variable it fills, or the query expression it holds. */
  private readonly groups: ({ kind: 'var'; name: string } | { kind: 'query'; names: string[] })[] = [];
  private readonly queryVars = new Set<string>();

  constructor(readonly template: string) {
    this.parts = parse(template);
    const vars: string[] = [];
    const pattern: Node[] = [];
    for (const part of this.parts) {
      if ('literal' in part) {
        pattern.push(literal(part.literal));
        continue;
      }
      vars.push(...part.vars);
      pattern.push(this.patternOf(part));
    }
    this.variables = vars;
    this.matcher = new LinearMatcher(sequence(pattern), this.groups.length);
  }

  static isTemplate(uri: string): boolean {
    return /\{[^}]*\}/.test(uri);
  }

  /** RFC 6570 §3.2 expansion; undefined variables are left out, as the RFC says. */
  expand(values: Record<string, string | number | boolean | readonly string[] | undefined>): string {
    let out = '';
    for (const part of this.parts) {
      if ('literal' in part) {
        out += encode(part.literal, true);
        continue;
      }
      const op = OPERATORS[part.op] as Operator;
      const items: string[] = [];
      for (const name of part.vars) {
        const raw = values[name];
        if (raw === undefined) continue;
        const value = Array.isArray(raw) ? raw.map((v) => encode(String(v), op.reserved)).join(',') : encode(String(raw), op.reserved);
        if (op.named) items.push(value === '' ? `${name}${op.ifEmpty}` : `${name}=${value}`);
        else items.push(value);
      }
      if (items.length) out += op.first + items.join(op.sep);
    }
    return out;
  }

  /** The decoded variables when `uri` matches, else undefined. Variables absent from the URI are absent here. */
  match(uri: string): Record<string, string> | undefined {
    const m = this.matcher.exec(uri);
    if (!m) return undefined;
    const out: Record<string, string> = {};
    this.groups.forEach((g, i) => {
      const raw = m[i + 1];
      if (raw === undefined) return;
      if (g.kind === 'var') out[g.name] = decode(raw);
      else {
        for (const pair of raw.split('&')) {
          if (pair === '') continue;
          const eq = pair.indexOf('=');
          const key = decode(eq < 0 ? pair : pair.slice(0, eq));
          if (this.queryVars.has(key) && out[key] === undefined) out[key] = decode(eq < 0 ? '' : pair.slice(eq + 1));
        }
      }
    });
    return out;
  }

  private patternOf(part: { op: string; vars: string[] }): Node {
    const op = part.op;
    const v = (name: string, chars: Node): Node => {
      this.groups.push({ kind: 'var', name });
      return capture(this.groups.length, chars);
    };
    // The same shapes the RegExp-based matcher used (lazy simple values, greedy reserved ones),
    // so every URI matches exactly as before; only the engine changed (uri-matcher.ts).
    switch (op) {
      case '': {
        // {x,y}: "x,y"; every variable optional after the first.
        const [first, ...rest] = part.vars as [string, ...string[]];
        const value = (min: 0 | 1): Node => repeat(anyBut('/?#,'), min, true);
        return sequence([v(first, value(rest.length ? 0 : 1)), ...rest.map((n) => optional(sequence([literal(','), v(n, value(0))])))]);
      }
      case '+':
      case '#': {
        const chars = (): Node => repeat(op === '+' ? anyBut('?#') : dot(), 0, false);
        const upToComma = (): Node => repeat(anyBut(','), 0, false);
        const [first, ...rest] = part.vars as [string, ...string[]];
        const body = sequence([
          v(first, rest.length ? upToComma() : chars()),
          ...rest.map((n, i) => optional(sequence([literal(','), v(n, i === rest.length - 1 ? chars() : upToComma())]))),
        ]);
        return op === '#' ? optional(sequence([literal('#'), body])) : body;
      }
      case '.':
        return sequence(part.vars.map((n) => optional(sequence([literal('.'), v(n, repeat(anyBut('/?#.'), 0, false))]))));
      case '/':
        return sequence(part.vars.map((n) => optional(sequence([literal('/'), v(n, repeat(anyBut('/?#'), 0, false))]))));
      case ';':
        return sequence(
          part.vars.map((n) =>
            optional(sequence([literal(`;${n}`), optional(sequence([literal('='), v(n, repeat(anyBut(';/?#'), 0, false))]))])),
          ),
        );
      case '?':
      case '&': {
        for (const n of part.vars) this.queryVars.add(n);
        this.groups.push({ kind: 'query', names: part.vars });
        return optional(sequence([literal(op), capture(this.groups.length, repeat(anyBut('#'), 0, false))]));
      }
      default:
        throw new UriTemplateError(`unknown operator '${op}'`);
    }
  }
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open < 0) {
      parts.push({ literal: template.slice(i) });
      break;
    }
    if (open > i) parts.push({ literal: template.slice(i, open) });
    const close = template.indexOf('}', open);
    if (close < 0) throw new UriTemplateError(`unclosed expression in URI template '${template}'`);
    let body = template.slice(open + 1, close);
    let op = '';
    if (body && '+#./;?&'.includes(body[0] as string)) {
      op = body[0] as string;
      body = body.slice(1);
    }
    const vars = body.split(',');
    for (const name of vars) {
      if (/[:*]/.test(name))
        throw new UriTemplateError(
          `'${name}' in '${template}': prefix (:n) and explode (*) modifiers are RFC 6570 level 4, which fw does not support`,
        );
      if (!VARNAME.test(name)) throw new UriTemplateError(`'${name}' is not a variable name (URI template '${template}')`);
    }
    parts.push({ op, vars });
    i = close + 1;
  }
  return parts;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

/** Percent-encodes what the operator does not allow (RFC 6570 §3.2.1); `reserved` keeps reserved characters and existing %XX. */
function encode(value: string, reserved: boolean): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] as string;
    if (reserved && ch === '%' && /^%[0-9A-Fa-f]{2}$/.test(value.slice(i, i + 3))) {
      out += value.slice(i, i + 3);
      i += 2;
    } else if (UNRESERVED.test(ch) || (reserved && RESERVED.test(ch))) out += ch;
    else {
      const cp = value.codePointAt(i) as number;
      const char = String.fromCodePoint(cp);
      if (cp > 0xffff) i++;
      out += [...Buffer.from(char, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    }
  }
  return out;
}

function decode(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
