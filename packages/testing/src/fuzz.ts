/**
 * A small seeded fuzzer for JSON endpoints: it takes valid requests (templates) and makes
 * structurally mutated copies of them: a node somewhere in the document (the root included) is
 * replaced by `null` or by a value of another type, deleted, emptied, wrapped, given unexpected
 * members, or pushed to an edge value. Most cases stay close to a valid request, so they get past
 * the first checks and reach the code that trusted the shape.
 *
 * Seeded, so a failure is reproducible: the same seed gives the same cases on every machine, and
 * `JsonFuzzer.case(i)` rebuilds case `i` alone. The values it invents never look like what the
 * tests look for in answers (IP addresses, file paths, stack frames), so an echo of the request
 * cannot be mistaken for a leak.
 *
 *   const fuzz = new JsonFuzzer({ seed: 1 });
 *   for (const body of fuzz.cases([validRequest], 20_000)) await post(JSON.stringify(body));
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** mulberry32: a 32-bit seeded PRNG (uniform in [0, 1)). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface JsonFuzzerOptions {
  /** The seed of the case sequence. */
  seed: number;
  /** At most this many mutations per case (at least one); default 3. */
  maxMutations?: number;
  /** Strings worth trying in this protocol (method names, enum values), beside the built-in ones. */
  strings?: readonly string[];
}

/** Strings that tend to break parsers and lookups; none looks like an address, a path or a stack. */
const STRINGS: readonly string[] = [
  '',
  ' ',
  'x',
  '0',
  '-1',
  'null',
  'true',
  '[]',
  '{}',
  '\u0000',
  '\ud800',
  'é',
  '🙂',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'a'.repeat(300),
];

const NUMBERS: readonly number[] = [0, -0, 1, -1, 1.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 53) - 2, 1e308, -1e308, 5e-324];

const KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype', 'id', 'type', 'kind', 'x', ''];

type Path = (string | number)[];

export class JsonFuzzer {
  private random: () => number;
  private readonly seed: number;
  private readonly maxMutations: number;
  private readonly strings: readonly string[];

  constructor(options: JsonFuzzerOptions) {
    this.seed = options.seed;
    this.random = seededRandom(options.seed);
    this.maxMutations = Math.max(1, options.maxMutations ?? 3);
    this.strings = [...STRINGS, ...(options.strings ?? [])];
  }

  /** `count` cases, cycling through the templates; case `i` is the same as `case(templates, i)`. */
  *cases(templates: readonly Json[], count: number): Generator<Json> {
    for (let i = 0; i < count; i++) yield this.case(templates, i);
  }

  /** Case number `i` alone (to reproduce one failure without running the cases before it). */
  case(templates: readonly Json[], i: number): Json {
    if (templates.length === 0) throw new Error('JsonFuzzer needs at least one template');
    // Each case has a generator of its own, derived from the seed and its number.
    this.random = seededRandom((Math.imul(this.seed ^ 0x9e3779b9, 0x85ebca6b) + i) | 0);
    let doc = clone(templates[i % templates.length]!);
    const n = 1 + this.int(this.maxMutations);
    for (let m = 0; m < n; m++) doc = this.mutate(doc);
    return doc;
  }

  /** One mutation of `doc` at a random node (the root included); `doc` itself is not changed. */
  mutate(doc: Json): Json {
    const paths = allPaths(doc);
    const path = this.pick(paths);
    const node = get(doc, path);
    const replacement = this.mutateNode(node, path.length === 0);
    if (replacement === DELETE) {
      if (path.length === 0) return null;
      return remove(doc, path);
    }
    return set(doc, path, replacement);
  }

  /** A random JSON value, `depth` levels deep at most. */
  value(depth = 2): Json {
    switch (this.int(depth > 0 ? 7 : 5)) {
      case 0:
        return null;
      case 1:
        return this.random() < 0.5;
      case 2:
        return this.pick(NUMBERS);
      case 3:
        return this.pick(this.strings);
      case 4:
        return this.int(1000);
      case 5:
        return Array.from({ length: this.int(3) }, () => this.value(depth - 1));
      default: {
        const o = emptyObject();
        for (let i = this.int(3); i > 0; i--) setKey(o, this.pick([...KEYS, ...this.strings.slice(0, 6)]), this.value(depth - 1));
        return o;
      }
    }
  }

  int(n: number): number {
    return Math.floor(this.random() * n);
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }

  private mutateNode(node: Json, root: boolean): Json | typeof DELETE {
    switch (this.int(10)) {
      case 0:
      case 1:
        return null;
      case 2:
        return this.otherType(node);
      case 3:
        return root ? this.value(1) : DELETE;
      case 4:
        return Array.isArray(node) ? [] : isObject(node) ? emptyObject() : typeof node === 'string' ? '' : 0;
      case 5:
        return this.random() < 0.5 ? [clone(node)] : objectOf(this.pick(KEYS), clone(node));
      case 6: {
        if (Array.isArray(node)) return [...node.map(clone), this.value()];
        if (isObject(node)) {
          const o = clone(node) as Record<string, Json>;
          setKey(o, this.pick(KEYS), this.value());
          return o;
        }
        return this.otherType(node);
      }
      case 7:
        if (typeof node === 'string') return this.pick(this.strings);
        if (typeof node === 'number') return this.pick(NUMBERS);
        return this.value();
      case 8:
        // The same member many times (bounded): loops over arrays, duplicate ids.
        if (Array.isArray(node) && node.length > 0) return Array.from({ length: 2 + this.int(30) }, () => clone(node[0]!));
        return this.value();
      default:
        return this.value(2);
    }
  }

  private otherType(node: Json): Json {
    for (let tries = 0; tries < 8; tries++) {
      const v = this.value(1);
      if (typeOf(v) !== typeOf(node)) return v;
    }
    return null;
  }
}

const DELETE = Symbol('delete');

function typeOf(v: Json): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

function isObject(v: Json): v is { [key: string]: Json } {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * An object without a prototype: a `__proto__` key is then an own member (as `JSON.parse` makes
 * it on the server), not the prototype setter.
 */
function emptyObject(): Record<string, Json> {
  return Object.create(null) as Record<string, Json>;
}

function setKey(o: Record<string, Json>, key: string, value: Json): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

function objectOf(key: string, value: Json): Json {
  const o = emptyObject();
  setKey(o, key, value);
  return o;
}

function clone(v: Json): Json {
  if (Array.isArray(v)) return v.map(clone);
  if (isObject(v)) {
    const o = emptyObject();
    for (const k of Object.keys(v)) setKey(o, k, clone(v[k]!));
    return o;
  }
  return v;
}

function allPaths(doc: Json, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(doc)) doc.forEach((v, i) => allPaths(v, [...prefix, i], out));
  else if (isObject(doc)) for (const k of Object.keys(doc)) allPaths(doc[k]!, [...prefix, k], out);
  return out;
}

function get(doc: Json, path: Path): Json {
  let v: Json = doc;
  for (const p of path) v = (v as Record<string | number, Json>)[p]!;
  return v;
}

/** A copy of `doc` with the node at `path` replaced. */
function set(doc: Json, path: Path, value: Json): Json {
  if (path.length === 0) return value;
  const out = clone(doc);
  const parent = get(out, path.slice(0, -1)) as Record<string | number, Json>;
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) parent[last as number] = value;
  else setKey(parent as Record<string, Json>, String(last), value);
  return out;
}

/** A copy of `doc` without the node at `path`. */
function remove(doc: Json, path: Path): Json {
  const out = clone(doc);
  const parent = get(out, path.slice(0, -1));
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete (parent as Record<string, Json>)[String(last)];
  return out;
}
