import { parseMarker, type Marker } from './markers.js';

/** The languages the docs test reads; any other fence (json, html, yaml, nginx) is not code it runs. */
export type Language = 'ts' | 'js' | 'shell';

const LANGUAGES: Record<string, Language> = {
  ts: 'ts',
  typescript: 'ts',
  js: 'js',
  javascript: 'js',
  mjs: 'js',
  sh: 'shell',
  bash: 'shell',
  shell: 'shell',
};

/** One fenced example of a Markdown file. */
export interface CodeBlock {
  /** The file as given (shown in every message: `docs/agents.md:251`). */
  file: string;
  /** The line of the opening fence (1-based). */
  line: number;
  language: Language;
  /** The code, with the fence's own indentation removed. */
  code: string;
  /** The `<!-- docs-test: … -->` comment right before the fence, if any. */
  marker: Marker | undefined;
  /** The line of the `#` or `##` heading the block is under (0 before any): a shell example
   * is run against a program above it in the same section. */
  section: number;
}

/** A marker the extractor cannot use: an unknown kind, or a skip without a reason. */
export class MarkerError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(`${file}:${line}: ${message}`);
  }
}

/**
 * Every ts/js/shell fence of a Markdown text, with its marker: the `<!-- docs-test: … -->` comment
 * before the fence, separated from it by nothing but blank lines and other HTML comments (such as
 * `<!-- pack-check: … -->`). A marker that precedes no fence of those languages is an error too,
 * so a marker cannot silently stop applying when the example below it changes language.
 */
export function extractBlocks(file: string, text: string): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  let pending: { marker: Marker; line: number } | undefined;
  let section = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const trimmed = raw.trim();
    if (/^#{1,2}\s/.test(raw)) section = i + 1;
    const comment = /^<!--\s*docs-test:(.*?)-->\s*$/.exec(trimmed);
    if (comment) {
      if (pending) throw new MarkerError(file, pending.line, 'a docs-test marker is followed by another one, not by a code fence');
      try {
        pending = { marker: parseMarker(comment[1]!), line: i + 1 };
      } catch (err) {
        throw new MarkerError(file, i + 1, (err as Error).message);
      }
      continue;
    }
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(raw);
    if (fence) {
      const [, indent = '', ticks = '```', info = ''] = fence;
      const end = lines.findIndex((l, k) => k > i && l.trim().startsWith(ticks) && l.trim().replace(/[`~]/g, '') === '');
      if (end < 0) throw new MarkerError(file, i + 1, 'a code fence is never closed');
      const language = LANGUAGES[info.toLowerCase()];
      if (language) {
        const code = lines
          .slice(i + 1, end)
          .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()))
          .join('\n');
        blocks.push({ file, line: i + 1, language, code: `${code}\n`, marker: pending?.marker, section });
        pending = undefined;
      } else if (pending) {
        throw new MarkerError(
          file,
          pending.line,
          `a docs-test marker is followed by a \`\`\`${info || '(plain)'} fence, which the docs test does not read`,
        );
      }
      i = end;
      continue;
    }
    // Other HTML comments and blank lines may sit between a marker and its fence; text may not.
    if (pending && trimmed !== '' && !/^<!--.*-->$/.test(trimmed)) {
      throw new MarkerError(file, pending.line, 'a docs-test marker must come right before a code fence');
    }
  }
  if (pending) throw new MarkerError(file, pending.line, 'a docs-test marker at the end of the file, before no code fence');
  return blocks;
}
