import type { CodeBlock } from './markdown.js';

/** One thing wrong with one example, said where it is: the Markdown file and line. */
export interface Failure {
  file: string;
  line: number;
  /** What was being done: `compile`, `run`, `shell syntax`, `shell run`, `marker`. */
  stage: string;
  message: string;
  /** The example's own line the message is about, or the output that explains it. */
  detail?: string;
}

export function failureAt(block: CodeBlock, stage: string, message: string, detail?: string, line = block.line): Failure {
  return { file: block.file, line, stage, message, ...(detail ? { detail } : {}) };
}

/**
 * `docs/agents.md:255 (compile): error TS2339: …` and the detail indented below it: its last 25
 * lines, each cut at 400 characters (a program's output can be long; the end says why it failed).
 */
export function formatFailure(f: Failure): string {
  const head = `${f.file}:${f.line} (${f.stage}): ${f.message}`;
  if (!f.detail) return head;
  const lines = f.detail.trimEnd().split('\n');
  const shown = lines.slice(-25).map((l) => `    ${l.length > 400 ? `…${l.slice(-400)}` : l}`);
  return `${head}\n${lines.length > 25 ? '    …\n' : ''}${shown.join('\n')}`;
}
