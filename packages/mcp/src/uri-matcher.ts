/**
 * A linear-time matcher for the patterns URI templates compile to (uri-template.ts). The old
 * matcher was a JavaScript RegExp, and V8 backtracks: `notes://{owner}.{name}` took O(n²) on a
 * URI with many dots and a bad tail (6.3 s for one 120 KB `resources/read`), `{a}{b}{c}{d}`
 * O(n⁴) (7 s on 400 characters), each blocking the event loop for everyone.
 *
 * This is a Pike VM (Thompson's construction with submatch tracking, as in RE2): every
 * alternative is followed in lockstep, one input character at a time, and two alternatives that
 * reach the same instruction at the same position are merged, keeping the one a backtracking
 * engine would have tried first. So the time is O(input length × pattern size) whatever the
 * input, and the captures are exactly the ones the RegExp gave (leftmost, with the same lazy and
 * greedy preferences): the RFC 6570 matches fw served before are unchanged.
 *
 * The patterns are a small subset of regular expressions, built with the node constructors below:
 * literals, character classes, one-or-more / zero-or-more repetition of a class (lazy or greedy),
 * optional groups, captures and sequences, anchored at both ends.
 */

/** What a pattern is made of. */
export type Node =
  | { kind: 'literal'; text: string }
  /** One character not in `excluded`; with `dot`, also not a line terminator (RegExp `.`). */
  | { kind: 'class'; excluded: string; dot?: boolean }
  /** `class+`, `class*`, `class+?`, `class*?`. */
  | { kind: 'repeat'; of: Node & { kind: 'class' }; min: 0 | 1; lazy: boolean }
  /** `(?:body)?`, greedy. */
  | { kind: 'optional'; body: Node }
  | { kind: 'capture'; index: number; body: Node }
  | { kind: 'sequence'; items: Node[] };

export const literal = (text: string): Node => ({ kind: 'literal', text });
export const anyBut = (excluded: string): Node & { kind: 'class' } => ({ kind: 'class', excluded });
/** RegExp `.` without the `s` flag: anything but a line terminator. */
export const dot = (): Node & { kind: 'class' } => ({ kind: 'class', excluded: '', dot: true });
export const repeat = (of: Node & { kind: 'class' }, min: 0 | 1, lazy: boolean): Node => ({ kind: 'repeat', of, min, lazy });
export const optional = (body: Node): Node => ({ kind: 'optional', body });
export const capture = (index: number, body: Node): Node => ({ kind: 'capture', index, body });
export const sequence = (items: Node[]): Node => ({ kind: 'sequence', items });

const CHAR = 0;
const CLASS = 1;
const SPLIT = 2;
const JUMP = 3;
const SAVE = 4;
const MATCH = 5;

/** One instruction: `op`, and `a`/`b` (the character, targets or capture slot). */
interface Instruction {
  op: number;
  /** CHAR: the code unit; SPLIT: the preferred target; JUMP: the target; SAVE: the slot. */
  a: number;
  /** SPLIT: the other target. */
  b: number;
  /** CLASS: the code units it does not take. */
  excluded: readonly number[];
}

/** RegExp `.` (no `s` flag) takes anything but these. */
const LINE_TERMINATORS = [0x0a, 0x0d, 0x2028, 0x2029];

/** A compiled pattern, anchored at both ends: `exec(input)` is the captured slices, or undefined. */
export class LinearMatcher {
  private readonly program: Instruction[] = [];
  /** Generation marks: the step in which each instruction was last added (merging threads). */
  private readonly seen: Int32Array;
  private generation = 0;

  constructor(
    pattern: Node,
    /** Capture groups, numbered from 1 like a RegExp's. */
    readonly groups: number,
  ) {
    this.emit(pattern);
    this.push(MATCH);
    this.seen = new Int32Array(this.program.length);
  }

  /** Like `RegExp.exec` on `^pattern$`: slot i (1-based) holds group i's text, or undefined. */
  exec(input: string): (string | undefined)[] | undefined {
    const size = this.program.length;
    // Each step holds at most one thread per instruction: two lists, reused for every step.
    let current = new ThreadList(size);
    let next = new ThreadList(size);
    const stack = new ThreadList(size * 2 + 2);
    if (this.generation > 2 ** 30) {
      // The marks are compared for equality only: start them over long before they could wrap.
      this.seen.fill(0);
      this.generation = 0;
    }
    this.generation++;
    this.add(current, stack, 0, new Array<number>(this.groups * 2 + 2).fill(-1), 0);
    let matched: number[] | undefined;
    for (let i = 0; i <= input.length && current.length > 0; i++) {
      const code = i < input.length ? input.charCodeAt(i) : -1;
      this.generation++; // a new step: `next` starts with no instruction reached
      for (let t = 0; t < current.length; t++) {
        const pc = current.pcs[t] as number;
        const inst = this.program[pc] as Instruction;
        if (inst.op === MATCH) {
          // Anchored at the end: a match counts only there; the first thread in priority order
          // wins and every lower one is dropped, as a backtracking engine would never try them.
          if (code === -1) {
            matched = current.caps[t];
            break;
          }
          continue;
        }
        if (code === -1) continue;
        if (inst.op === CHAR ? code === inst.a : !inst.excluded.includes(code))
          this.add(next, stack, pc + 1, current.caps[t] as number[], i + 1);
      }
      if (matched) break;
      [current, next] = [next, current];
      next.length = 0;
    }
    if (!matched) return undefined;
    const out: (string | undefined)[] = [input];
    for (let g = 1; g <= this.groups; g++) {
      const from = matched[g * 2] as number;
      const to = matched[g * 2 + 1] as number;
      out.push(from >= 0 && to >= 0 ? input.slice(from, to) : undefined);
    }
    return out;
  }

  /**
   * Adds the thread at `pc` to `list`, following jumps, splits (preferred branch first) and
   * saves, so `list` holds only character-consuming instructions and MATCH, in priority order.
   * An instruction already reached in this step keeps its earlier, higher-priority thread.
   */
  private add(list: ThreadList, stack: ThreadList, pc: number, caps: number[], at: number): void {
    stack.length = 0;
    stack.push(pc, caps);
    while (stack.length > 0) {
      stack.length--;
      const p = stack.pcs[stack.length] as number;
      const c = stack.caps[stack.length] as number[];
      if (this.seen[p] === this.generation) continue;
      this.seen[p] = this.generation;
      const inst = this.program[p] as Instruction;
      switch (inst.op) {
        case JUMP:
          stack.push(inst.a, c);
          break;
        case SPLIT:
          // Popped last-in first-out: push the other branch first so the preferred one runs first.
          stack.push(inst.b, c);
          stack.push(inst.a, c);
          break;
        case SAVE: {
          const copy = c.slice();
          copy[inst.a] = at;
          stack.push(p + 1, copy);
          break;
        }
        default:
          list.push(p, c);
      }
    }
  }

  private push(op: number, a = 0, b = 0, excluded: readonly number[] = []): number {
    this.program.push({ op, a, b, excluded });
    return this.program.length - 1;
  }

  private emit(node: Node): void {
    switch (node.kind) {
      case 'literal':
        for (let i = 0; i < node.text.length; i++) this.push(CHAR, node.text.charCodeAt(i));
        return;
      case 'class': {
        const excluded = [...node.excluded].map((ch) => ch.charCodeAt(0));
        this.push(CLASS, 0, 0, node.dot ? [...excluded, ...LINE_TERMINATORS] : excluded);
        return;
      }
      case 'sequence':
        for (const item of node.items) this.emit(item);
        return;
      case 'capture':
        this.push(SAVE, node.index * 2);
        this.emit(node.body);
        this.push(SAVE, node.index * 2 + 1);
        return;
      case 'optional': {
        const split = this.push(SPLIT);
        this.emit(node.body);
        this.patch(split, split + 1, this.program.length);
        return;
      }
      case 'repeat': {
        if (node.min === 1) {
          // body; then loop back (greedy) or go on (lazy) first.
          const body = this.program.length;
          this.emit(node.of);
          const split = this.push(SPLIT);
          if (node.lazy) this.patch(split, split + 1, body);
          else this.patch(split, body, split + 1);
          return;
        }
        // split (body | out); body; jump split.
        const split = this.push(SPLIT);
        this.emit(node.of);
        this.push(JUMP, split);
        const out = this.program.length;
        if (node.lazy) this.patch(split, out, split + 1);
        else this.patch(split, split + 1, out);
        return;
      }
    }
  }

  private patch(at: number, preferred: number, other: number): void {
    const inst = this.program[at] as Instruction;
    inst.a = preferred;
    inst.b = other;
  }
}

/** Threads as two parallel arrays (instruction, capture slots), allocated once per match. */
class ThreadList {
  readonly pcs: Int32Array;
  readonly caps: (number[] | undefined)[];
  length = 0;

  constructor(capacity: number) {
    this.pcs = new Int32Array(capacity);
    this.caps = new Array<number[] | undefined>(capacity);
  }

  push(pc: number, caps: number[]): void {
    this.pcs[this.length] = pc;
    this.caps[this.length] = caps;
    this.length++;
  }
}
