import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { COMPILER_OPTIONS } from 'create-fw';
import { contextDeclaration, givenDeclaration } from './context.js';
import { fwExports } from './exports-index.js';
import { failureAt, type Failure } from './failure.js';
import type { CodeBlock } from './markdown.js';

/** One example as a file of the compilation. */
export interface Unit {
  /** File name stem, from the doc and line: `docs-agents-md-251`. */
  id: string;
  block: CodeBlock;
  kind: 'program' | 'fragment';
  /** Names a `fragment given:` marker lists: the reader's own, typed `any`. */
  given: readonly string[];
}

export interface Compiled {
  failures: Failure[];
  /** The emitted JavaScript of each program, by unit id. */
  outputs: Map<string, string>;
}

/** "Cannot find name 'x'" and its relatives: the names a fragment takes from the docs' context. */
const MISSING_NAME = [2304, 2552, 18004, 2663];

/** A page imports the client the server serves; its types are @fw/client's (the same line length is kept). */
const PAGE_CLIENT = /(['"])\/fw\/client(?:\.global)?\.js\1/g;

/**
 * Compiles every example with the compiler options fw's docs state (create-fw's
 * COMPILER_OPTIONS) plus the DOM library (some examples run in a page); JavaScript examples are
 * checked too (checkJs), in a program of their own that allows implicit `any`, as JavaScript
 * does. Programs compile as written. A fragment first gets what it uses but does not define: a
 * conventional variable (`fw`, `resource`, …) or an fw export, imported; a method written on its
 * own is compiled inside a class (its imports stay above it). Each diagnostic is reported at its
 * line and column of the Markdown file, with that line.
 */
export function compileUnits(units: readonly Unit[], workDir: string): Compiled {
  const srcDir = join(workDir, 'src');
  const outDir = join(workDir, 'out');
  mkdirSync(srcDir, { recursive: true });
  const base = compilerOptions(workDir, outDir);
  const failures: Failure[] = [];
  const outputs = new Map<string, string>();
  const languages = [
    { units: units.filter((u) => u.block.language === 'ts'), options: base },
    { units: units.filter((u) => u.block.language === 'js'), options: { ...base, noImplicitAny: false } },
  ];
  let index: Map<string, string> | undefined;
  for (const { units: group, options } of languages) {
    if (group.length === 0) continue;
    const layouts = new Map(group.map((u) => [u, new Layout(u)]));
    const pathOf = (u: Unit): string => join(srcDir, `${u.id}.${u.block.language === 'js' ? 'js' : 'ts'}`);

    // Pass 1, fragments only: which names does each use without defining them?
    const fragments = group.filter((u) => u.kind === 'fragment');
    for (const u of fragments) writeFileSync(pathOf(u), layouts.get(u)!.render());
    if (fragments.length > 0) {
      index ??= fwExports(workDir, base);
      const first = ts.createProgram(fragments.map(pathOf), { ...options, noEmit: true });
      const missing = new Map<string, Set<string>>();
      for (const d of ts.getPreEmitDiagnostics(first)) {
        if (!d.file || !MISSING_NAME.includes(d.code)) continue;
        const name = /'([^']+)'/.exec(ts.flattenDiagnosticMessageText(d.messageText, '\n'))?.[1];
        if (name) missing.set(d.file.fileName, (missing.get(d.file.fileName) ?? new Set()).add(name));
      }
      for (const u of fragments) {
        const layout = layouts.get(u)!;
        for (const name of missing.get(normal(pathOf(u))) ?? []) {
          const context = contextDeclaration(name, u.block.language === 'js');
          if (context) layout.declarations.push(context);
          else if (index.has(name)) layout.imports.set(index.get(name)!, [...(layout.imports.get(index.get(name)!) ?? []), name]);
        }
        writeFileSync(pathOf(u), layout.render());
      }
    }
    for (const u of group) if (u.kind === 'program') writeFileSync(pathOf(u), layouts.get(u)!.render());

    // Pass 2: everything, emitted.
    const program = ts.createProgram(group.map(pathOf), options);
    const emitted = program.emit();
    const byPath = new Map(group.map((u) => [normal(pathOf(u)), u]));
    for (const d of [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics]) {
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      const unit = d.file ? byPath.get(d.file.fileName) : undefined;
      if (!unit || d.start === undefined || !d.file) {
        // Not in an example (a missing declaration file, a broken install): said once, plainly.
        failures.push({ file: d.file?.fileName ?? '(compiler)', line: 0, stage: 'compile', message: `error TS${d.code}: ${text}` });
        continue;
      }
      const pos = d.file.getLineAndCharacterOfPosition(d.start);
      const codeLine = layouts.get(unit)!.origin[pos.line];
      if (codeLine === undefined) {
        failures.push(failureAt(unit.block, 'compile', `error TS${d.code}: ${text} (in what the docs test added around this fragment)`));
        continue;
      }
      const docLine = unit.block.line + 1 + codeLine;
      const source = unit.block.code.split('\n')[codeLine];
      failures.push(failureAt(unit.block, 'compile', `error TS${d.code}: ${text}`, `${docLine}:${pos.character + 1} | ${source}`, docLine));
    }
    for (const u of group) if (u.kind === 'program') outputs.set(u.id, join(outDir, 'src', `${u.id}.js`));
  }
  return { failures, outputs };
}

function compilerOptions(workDir: string, outDir: string): ts.CompilerOptions {
  const { options, errors } = ts.convertCompilerOptionsFromJson(
    {
      ...COMPILER_OPTIONS,
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      types: ['node'],
      allowJs: true,
      checkJs: true,
      rootDir: workDir,
      outDir,
    },
    workDir,
  );
  if (errors.length > 0) throw new Error(ts.flattenDiagnosticMessageText(errors[0]!.messageText, '\n'));
  return options;
}

const normal = (path: string): string => path.replaceAll('\\', '/');

/**
 * How an example sits in its file: imports and declarations the docs test adds, the reader's
 * `given` names, and for a method on its own the class around it; `origin` maps each line of the
 * file back to the example's own line (undefined for an added one).
 */
class Layout {
  readonly imports = new Map<string, string[]>();
  readonly declarations: string[] = [];
  /** Example line of each file line, for the last render. */
  origin: (number | undefined)[] = [];
  private readonly code: string[];
  /** A method on its own: its leading import lines stay outside, the rest goes in a class. */
  private readonly wrapAt: number | undefined;

  constructor(private readonly unit: Unit) {
    this.code = unit.block.code
      .replace(/\n$/, '')
      .replace(PAGE_CLIENT, (_m, q: string) => `${q}@fw/client${q}`)
      .split('\n');
    this.wrapAt = unit.kind === 'fragment' ? methodStart(this.code, unit.block.language) : undefined;
  }

  render(): string {
    const out: string[] = [];
    this.origin = [];
    const add = (line: string, from?: number): void => {
      out.push(line);
      this.origin.push(from);
    };
    for (const [entry, names] of this.imports) add(`import { ${[...new Set(names)].sort().join(', ')} } from '${entry}';`);
    for (const d of this.declarations) add(d);
    if (this.unit.kind === 'fragment') {
      for (const g of this.unit.given) add(givenDeclaration(g, this.unit.block.language === 'js'));
      add('export {};');
    }
    this.code.forEach((line, i) => {
      if (i === this.wrapAt) add('class Example {');
      add(line, i);
    });
    if (this.wrapAt !== undefined) add('}');
    return `${out.join('\n')}\n`;
  }
}

/**
 * Where a fragment that is a method on its own (`@McpTool(…) async book(ctx) {…}`) starts, after
 * its leading imports; undefined when the fragment parses as a module as it is.
 */
function methodStart(code: readonly string[], language: 'ts' | 'js' | 'shell'): number | undefined {
  const text = code.join('\n');
  if (!hasSyntaxErrors(text, language)) return undefined;
  let start = 0;
  while (start < code.length && (/^\s*(import\s|$|\/\/)/.test(code[start]!) || code[start]!.trim() === '')) start++;
  const wrapped = [...code.slice(0, start), 'class Example {', ...code.slice(start), '}'].join('\n');
  return hasSyntaxErrors(wrapped, language) ? undefined : start;
}

function hasSyntaxErrors(code: string, language: 'ts' | 'js' | 'shell'): boolean {
  const out = ts.transpileModule(code, {
    reportDiagnostics: true,
    fileName: language === 'js' ? 'x.js' : 'x.ts',
    compilerOptions: { experimentalDecorators: true, allowJs: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  });
  return (out.diagnostics ?? []).length > 0;
}

/** Whether a block with imports is really a method on its own (a fragment, not a program). */
export function isMethodFragment(block: CodeBlock): boolean {
  return methodStart(block.code.replace(/\n$/, '').split('\n'), block.language) !== undefined;
}
