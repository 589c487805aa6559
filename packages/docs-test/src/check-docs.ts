import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { compileUnits, isMethodFragment, type Unit } from './compile.js';
import { startDemo, type RunningDemo } from './demo.js';
import type { Failure } from './failure.js';
import { extractBlocks, MarkerError, type CodeBlock } from './markdown.js';
import { runPrograms, startProgram } from './programs.js';
import { checkShellSyntax, curlProblem, isCurlOnly, runCurl } from './shell.js';

export interface CheckOptions {
  /** The repository (its node_modules resolve the examples' imports; its demo is started). */
  root: string;
  /** Markdown files, relative to `root` (as they are shown in messages). */
  files: readonly string[];
  /** Programs run at the same time (default 4). */
  concurrency?: number;
}

export interface Report {
  failures: Failure[];
  examples: number;
  compiled: number;
  run: number;
  shellChecked: number;
  shellRun: number;
  /** Examples a marker keeps from running, with the marker's reason. */
  notRun: { file: string; line: number; reason: string }[];
  skipped: { file: string; line: number; reason: string }[];
}

/** A TypeScript/JavaScript example with an import is a program; `/fw/client.js` means it runs in a page. */
function classify(block: CodeBlock): { unit: Omit<Unit, 'id'>; run: boolean; notRun?: string } {
  const marker = block.marker;
  if (marker?.kind === 'fragment') return { unit: { block, kind: 'fragment', given: marker.given }, run: false };
  const hasImport = /^import[\s{*'"]/m.test(block.code);
  // No import, or a method on its own under its imports: a part of a program.
  if ((!hasImport || isMethodFragment(block)) && marker?.kind !== 'compile-only')
    return { unit: { block, kind: 'fragment', given: [] }, run: false };
  if (marker?.kind === 'compile-only') return { unit: { block, kind: 'program', given: [] }, run: false, notRun: marker.reason };
  if (/from\s+['"]\/fw\/client(\.global)?\.js['"]/.test(block.code))
    return { unit: { block, kind: 'program', given: [] }, run: false, notRun: 'runs in a browser page' };
  return { unit: { block, kind: 'program', given: [] }, run: true };
}

/**
 * The docs test: extracts every ts/js/shell example of `files`, compiles the TypeScript and
 * JavaScript ones in one program, runs the complete programs briefly against loopback (with the
 * repository's demo where they mean `localhost:8080`), checks every shell example's syntax and
 * runs the curl-only ones against the demo. Every failure names the Markdown file and line.
 */
export async function checkDocs(options: CheckOptions): Promise<Report> {
  const report: Report = { failures: [], examples: 0, compiled: 0, run: 0, shellChecked: 0, shellRun: 0, notRun: [], skipped: [] };
  const blocks: CodeBlock[] = [];
  for (const file of options.files) {
    try {
      blocks.push(...extractBlocks(file, readFileSync(resolve(options.root, file), 'utf8')));
    } catch (err) {
      if (!(err instanceof MarkerError)) throw err;
      report.failures.push({
        file: err.file,
        line: err.line,
        stage: 'marker',
        message: err.message.slice(`${err.file}:${err.line}: `.length),
      });
    }
  }
  report.examples = blocks.length;

  const units: Unit[] = [];
  const toRun = new Set<Unit>();
  const shells: CodeBlock[] = [];
  const curls: CodeBlock[] = [];
  for (const block of blocks) {
    if (block.marker?.kind === 'skip') {
      report.skipped.push({ file: block.file, line: block.line, reason: block.marker.reason });
      continue;
    }
    if (block.language === 'shell') {
      shells.push(block);
      if (block.marker?.kind === 'compile-only') report.notRun.push({ file: block.file, line: block.line, reason: block.marker.reason });
      else if (block.marker === undefined && isCurlOnly(block.code)) {
        const problem = curlProblem(block.code);
        if (problem) report.failures.push({ file: block.file, line: block.line, stage: 'shell run', message: problem });
        else curls.push(block);
      }
      continue;
    }
    const { unit, run, notRun } = classify(block);
    const full: Unit = { ...unit, id: `${block.file.replace(/[^A-Za-z0-9]+/g, '-')}-${block.line}` };
    units.push(full);
    if (run) toRun.add(full);
    if (notRun) report.notRun.push({ file: block.file, line: block.line, reason: notRun });
  }

  const work = mkdtempSync(join(tmpdir(), 'fw-docs-test-'));
  let demo: RunningDemo | undefined;
  try {
    // A project of its own outside the repository, whose node_modules is the repository's: the
    // examples import the built workspace packages (and zod, fastify, …) as an app would.
    writeFileSync(join(work, 'package.json'), '{ "type": "module", "private": true }\n');
    symlinkSync(join(options.root, 'node_modules'), join(work, 'node_modules'), 'dir');
    const compiled = compileUnits(units, work);
    report.failures.push(...compiled.failures);
    report.compiled = units.length;
    // A program that does not compile is reported once, for its compile errors, and not run.
    const lastLine = (u: Unit): number => u.block.line + u.block.code.split('\n').length;
    const programs = [...toRun]
      .filter((u) => !compiled.failures.some((f) => f.file === u.block.file && f.line >= u.block.line && f.line <= lastLine(u)))
      .map((unit) => ({ unit, js: compiled.outputs.get(unit.id)! }));

    for (const block of shells) {
      const failure = await checkShellSyntax(block, work);
      report.shellChecked++;
      if (failure) report.failures.push(failure);
    }
    if (programs.length > 0 || curls.length > 0) {
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? work,
        FW_DATA_DIR: '',
        ADMIN_TOKEN: randomBytes(16).toString('hex'),
      };
      demo = await startDemo(options.root, env);
      report.failures.push(
        ...(await runPrograms(programs, { cwd: work, env, ports: [[8080, demo.port]], concurrency: options.concurrency ?? 4 })),
      );
      report.run = programs.length;
      const settings = { cwd: work, env, ports: [] as const, concurrency: 1 };
      for (const block of curls) {
        report.shellRun++;
        // The program of the same section above the example is what it calls (the docs' "start
        // it, then try it"); with none, the demo.
        const above = programs
          .filter((p) => p.unit.block.file === block.file && p.unit.block.section === block.section && p.unit.block.line < block.line)
          .at(-1);
        if (!above) {
          const failure = await runCurl(block, demo.port, work);
          if (failure) report.failures.push(failure);
          continue;
        }
        let started: Awaited<ReturnType<typeof startProgram>> | undefined;
        try {
          started = await startProgram(above.js, 8080, settings);
          const failure = await runCurl(block, started.ports.get(8080)!, work, `${above.unit.block.file}:${above.unit.block.line}`);
          if (failure) report.failures.push(failure);
        } catch (err) {
          report.failures.push({
            file: block.file,
            line: block.line,
            stage: 'shell run',
            message: (err as Error).message.split('\n')[0]!,
            detail: (err as Error).message.split('\n').slice(1).join('\n'),
          });
        } finally {
          await started?.stop();
        }
      }
    }
  } finally {
    await demo?.stop();
    rmSync(work, { recursive: true, force: true });
  }
  report.failures.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  return report;
}

/** The summary line and the lists, as the CLI and the test print them. */
export function summary(report: Report): string {
  const lines = [
    `docs test: ${report.examples} examples: ${report.compiled} compiled, ${report.run} programs run, ${report.shellChecked} shell examples checked, ${report.shellRun} run against the demo, ${report.skipped.length} skipped`,
  ];
  for (const s of report.notRun) lines.push(`  compiled, not run: ${s.file}:${s.line} (${s.reason})`);
  for (const s of report.skipped) lines.push(`  skipped: ${s.file}:${s.line} (${s.reason})`);
  return lines.join('\n');
}
