/** Tables for bench output: aligned plain text for the terminal, GitHub Markdown for docs. */
export type Cell = string | number;

export function textTable(headers: string[], rows: Cell[][]): string {
  const all = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...all.map((r) => String(r[i] ?? '').length)));
  const line = (r: Cell[]) => r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function markdownTable(headers: string[], rows: Cell[][]): string {
  const line = (r: Cell[]) => `| ${r.map(String).join(' | ')} |`;
  return [line(headers), `|${headers.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map(line)].join('\n');
}

/** A number with a fixed count of significant figures, thousands separated: 1 234 567 → "1,234,567". */
export function fmt(n: number, digits = 0): string {
  if (!Number.isFinite(n)) return '–';
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** A ratio a/b as "2.4×". */
export function ratio(a: number, b: number): string {
  return Number.isFinite(a / b) && b !== 0 ? `${(a / b).toFixed(2)}×` : '–';
}
