import ts from 'typescript';
import { FW_ENTRY_POINTS } from './context.js';

/**
 * Every name exported by fw's entry points, with the first entry point (in FW_ENTRY_POINTS order)
 * that exports it: what a fragment that uses `McpRegistry` without importing it gets imported.
 * Read with the compiler from the built declarations, so the index is always the packages' own.
 */
export function fwExports(dir: string, options: ts.CompilerOptions): Map<string, string> {
  const probe = `${dir}/__exports_probe__.ts`;
  const text = FW_ENTRY_POINTS.map((e, i) => `import * as m${i} from '${e}';\nvoid m${i};`).join('\n');
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (file) => (file === probe ? text : read(file));
  const exists = host.fileExists.bind(host);
  host.fileExists = (file) => file === probe || exists(file);
  const program = ts.createProgram([probe], { ...options, noEmit: true }, host);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(probe)!;
  const index = new Map<string, string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const entry = (statement.moduleSpecifier as ts.StringLiteral).text;
    const symbol = checker.getSymbolAtLocation(statement.moduleSpecifier);
    if (!symbol) throw new Error(`the docs test cannot load ${entry}: is it built (npm run build)?`);
    for (const exported of checker.getExportsOfModule(symbol)) {
      if (!index.has(exported.name) && exported.name !== 'default') index.set(exported.name, entry);
    }
  }
  return index;
}
