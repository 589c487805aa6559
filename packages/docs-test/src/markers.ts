/**
 * What an example's `<!-- docs-test: … -->` marker says (the comment right before its fence):
 *
 * - `skip <reason>`: neither compiled nor run; the reason is required and printed in the summary.
 * - `compile-only <reason>`: a complete program that is compiled but not run (it needs a service
 *   the test does not start, such as Redis or a JWKS server); the reason is required.
 * - `fragment`: a part of a program, compiled in the docs' context even though it imports
 *   something (without imports a block is a fragment anyway). `fragment given: a, b` also
 *   declares names the reader brings (their own functions), typed `any`.
 *
 * Without a marker, a TypeScript/JavaScript block with an import is a program (compiled, then run
 * briefly), one without is a fragment; a shell block is syntax-checked, and run against the demo
 * when it only calls fw's endpoints with curl.
 */
export type Marker = { kind: 'skip'; reason: string } | { kind: 'compile-only'; reason: string } | { kind: 'fragment'; given: string[] };

export function parseMarker(text: string): Marker {
  const body = text.trim();
  const [kind = '', ...rest] = body.split(/\s+/);
  const tail = body.slice(kind.length).trim();
  switch (kind) {
    case 'skip':
    case 'compile-only':
      if (tail === '') throw new Error(`'docs-test: ${kind}' needs a reason: <!-- docs-test: ${kind} needs Redis -->`);
      return { kind, reason: tail };
    case 'fragment': {
      if (tail === '') return { kind, given: [] };
      const m = /^given:\s*(.+)$/.exec(tail);
      if (!m) throw new Error(`'docs-test: fragment' takes nothing or 'given: name, name', not '${tail}'`);
      const given = m[1]!.split(',').map((s) => s.trim());
      const bad = given.find((g) => !/^[A-Za-z_$][\w$]*$/.test(g));
      if (bad !== undefined) throw new Error(`'docs-test: fragment given:' lists names, and '${bad}' is not one`);
      return { kind, given };
    }
    default:
      void rest;
      throw new Error(`unknown docs-test marker '${kind}': use skip <reason>, compile-only <reason> or fragment [given: names]`);
  }
}
