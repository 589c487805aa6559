/**
 * The docs' context: what a fragment may use without defining it. A name a fragment uses but
 * neither declares nor imports is looked up here first (the conventional variables of fw's docs),
 * then among the exports of fw's packages (imported for it), else it is a compile error like any
 * other: an example that calls `fw.handel(...)` or `McpRegistery.of(fw)` fails.
 */
const CONTEXT_TYPES: Readonly<Record<string, string>> = {
  fw: "import('@fw/runtime').Framework",
  resource: "import('@fw/runtime').Resource",
  server: "import('node:http').Server",
  client: "import('@fw/client').FwClient",
};

/** The declaration of a conventional name, in TypeScript or (JSDoc) JavaScript; undefined for any other name. */
export function contextDeclaration(name: string, js: boolean): string | undefined {
  const type = CONTEXT_TYPES[name];
  if (!type) return undefined;
  return js ? `const ${name} = /** @type {${type}} */ (/** @type {unknown} */ (undefined));` : `declare const ${name}: ${type};`;
}

/** A name the reader brings (`<!-- docs-test: fragment given: render -->`), typed `any`. */
export function givenDeclaration(name: string, js: boolean): string {
  return js ? `const ${name} = /** @type {any} */ (undefined);` : `declare const ${name}: any;`;
}

/** Where fw's exported names come from, in the order a name found in two places is taken. */
export const FW_ENTRY_POINTS = [
  '@fw/runtime',
  '@fw/mcp',
  '@fw/agent',
  '@fw/admin',
  '@fw/redis',
  '@fw/client',
  '@fw/store',
  '@fw/app',
  '@fw/protocol',
  '@fw/runtime/adapter',
] as const;
