import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { ConfigError } from './config-error.js';

/** Where a value sits in a file: 1-based line and column. */
export interface TextPosition {
  line: number;
  column: number;
}

/** A parsed `fw.config.json`: its values and, per object, where each property's value starts. */
export interface ConfigFileContents {
  /** The path as shown in messages (relative to the working directory when inside it). */
  shown: string;
  root: Record<string, unknown>;
  /** For every object of the file, the position of each of its properties' values. */
  positions: WeakMap<object, Map<string, TextPosition>>;
}

/**
 * Reads `fw.config.json` with a JSON parser of its own, for two things `JSON.parse` does not give:
 * a syntax error names the file, line and column in the same words on every Node version (Node
 * 20 says `Unexpected token } in JSON at position 31`, later ones quote the text), and every
 * value keeps its position, so a value of the wrong type is reported at its line and column.
 * Plain JSON (RFC 8259): no comments, no trailing commas.
 */
export function readConfigFile(path: string): ConfigFileContents {
  const rel = relative(process.cwd(), path);
  const shown = rel && !rel.startsWith('..') ? rel : path;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`${shown}: cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const parser = new JsonParser(text, shown);
  const root = parser.document();
  if (root === null || typeof root !== 'object' || Array.isArray(root)) {
    throw new ConfigError(`${shown}: line 1, column 1: the file must hold one JSON object ({ "fw": { … } } or { "fw.key": … })`);
  }
  return { shown, root: root as Record<string, unknown>, positions: parser.positions };
}

class JsonParser {
  private i = 0;
  readonly positions = new WeakMap<object, Map<string, TextPosition>>();

  constructor(
    private readonly text: string,
    private readonly shown: string,
  ) {
    if (text.charCodeAt(0) === 0xfeff) this.i = 1; // a byte-order mark some editors write
  }

  document(): unknown {
    this.space();
    if (this.i >= this.text.length) this.fail('the file is empty: expected a JSON object');
    const value = this.value();
    this.space();
    if (this.i < this.text.length) this.fail(`unexpected ${this.describe()} after the end of the JSON object`);
    return value;
  }

  private value(): unknown {
    const c = this.text[this.i];
    switch (c) {
      case '{':
        return this.object();
      case '[':
        return this.array();
      case '"':
        return this.string();
      case 't':
        return this.word('true', true);
      case 'f':
        return this.word('false', false);
      case 'n':
        return this.word('null', null);
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
        return this.fail(`expected a value, found ${this.describe()}`);
    }
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const where = new Map<string, TextPosition>();
    this.positions.set(out, where);
    this.i++; // {
    this.space();
    if (this.text[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.text[this.i] !== '"') {
        this.fail(
          this.text[this.i] === '}'
            ? 'a trailing comma before } (JSON allows none)'
            : `expected a property name in double quotes, found ${this.describe()}`,
        );
      }
      const key = this.string();
      this.space();
      if (this.text[this.i] !== ':') this.fail(`expected ':' after the property name "${key}", found ${this.describe()}`);
      this.i++;
      this.space();
      const at = this.position(this.i);
      // defineProperty: a "__proto__" property stays data, as with JSON.parse.
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
      where.set(key, at);
      this.space();
      const c = this.text[this.i];
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === '}') {
        this.i++;
        return out;
      }
      this.fail(`expected ',' or '}' after the value of "${key}", found ${this.describe()}`);
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.i++; // [
    this.space();
    if (this.text[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.text[this.i] === ']') this.fail('a trailing comma before ] (JSON allows none)');
      out.push(this.value());
      this.space();
      const c = this.text[this.i];
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === ']') {
        this.i++;
        return out;
      }
      this.fail(`expected ',' or ']' in the array, found ${this.describe()}`);
    }
  }

  private string(): string {
    const start = this.i;
    this.i++; // "
    let out = '';
    for (;;) {
      const c = this.text[this.i];
      if (c === undefined) this.fail('a string is not closed before the end of the file', start);
      if (c === '"') {
        this.i++;
        return out;
      }
      if (c === '\\') {
        const e = this.text[this.i + 1];
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e !== undefined && e in simple) {
          out += simple[e];
          this.i += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(this.text.slice(this.i + 2, this.i + 6))) {
          out += String.fromCharCode(Number.parseInt(this.text.slice(this.i + 2, this.i + 6), 16));
          this.i += 6;
        } else {
          this.fail(`an invalid escape \\${e ?? ''} in a string`);
        }
        continue;
      }
      if (c < ' ') this.fail('a control character (a raw line break or tab) inside a string: write it as \\n or \\t');
      out += c;
      this.i++;
    }
  }

  private number(): number {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.i, this.i + 400));
    if (!m) this.fail(`expected a number, found ${this.describe()}`);
    this.i += m[0].length;
    return Number(m[0]);
  }

  private word<T>(word: string, value: T): T {
    if (this.text.startsWith(word, this.i)) {
      this.i += word.length;
      return value;
    }
    return this.fail(`expected a value, found ${this.describe()}`);
  }

  private space(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i]!)) this.i++;
  }

  /** What is at the cursor, for a message: the character (or word), or the end of the file. */
  private describe(): string {
    if (this.i >= this.text.length) return 'the end of the file';
    const word = /^[A-Za-z_$][\w$]*/.exec(this.text.slice(this.i, this.i + 40))?.[0];
    if (word) return `'${word}'`;
    return `'${this.text[this.i]}'`;
  }

  private position(offset: number): TextPosition {
    let line = 1;
    let lineStart = 0;
    for (let k = 0; k < offset; k++) {
      if (this.text.charCodeAt(k) === 10) {
        line++;
        lineStart = k + 1;
      }
    }
    return { line, column: offset - lineStart + 1 };
  }

  private fail(message: string, at = this.i): never {
    const { line, column } = this.position(Math.min(at, this.text.length));
    throw new ConfigError(`${this.shown}: line ${line}, column ${column}: ${message}`);
  }
}
