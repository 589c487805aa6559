/**
 * The compiler options fw's docs assume (docs/mcp.md states them; the docs test compiles every
 * example with them): ES modules on Node, strict, and TypeScript's legacy decorators, which
 * `@McpServer`, `@McpParam` and `@Agent` are.
 */
export const COMPILER_OPTIONS = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
  skipLibCheck: true,
  experimentalDecorators: true,
} as const;

/** The app's tsconfig.json: those options, built into dist/ (src/ → dist/src, test/ → dist/test). */
export function tsconfigJson(): string {
  const config = {
    compilerOptions: { ...COMPILER_OPTIONS, outDir: 'dist', rootDir: '.', types: ['node'] },
    include: ['src', 'test'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
