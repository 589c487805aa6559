/**
 * Registration-time check of `x-mcp-header` annotations on a tool's input schema (2026-07-28
 * transports/streamable-http "Schema Extension"): a client MUST drop a tool whose annotation
 * breaks a constraint, so fw refuses to register it and names the tool and the parameter.
 */
import type { JsonSchema } from '../schema.js';

/** RFC 9110 §5.1 field-name token: 1*tchar. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Keywords whose values are data, not subschemas: an `x-mcp-header` key inside them is not an annotation. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required', 'type', 'description', 'title', '$comment']);
const PRIMITIVE = new Set(['string', 'integer', 'boolean']);

/** Every constraint an `x-mcp-header` annotation of `schema` breaks, each naming the parameter. */
export function headerAnnotationProblems(schema: JsonSchema): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): void => {
    if (Array.isArray(node)) {
      node.forEach((item) => visit(item, path, false));
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const s = node as Record<string, unknown>;
    if ('x-mcp-header' in s) {
      const where = path.length ? `parameter '${path.join('.')}'` : 'the schema root';
      const value = s['x-mcp-header'];
      if (!reachable || path.length === 0) {
        problems.push(
          `${where}: x-mcp-header is only allowed on a property reachable from the root through 'properties' alone (not items, oneOf/anyOf/allOf/not, if/then/else or $ref)`,
        );
      } else if (typeof value !== 'string' || value === '') {
        problems.push(`${where}: x-mcp-header must be a non-empty string`);
      } else if (!TOKEN.test(value)) {
        problems.push(
          `${where}: x-mcp-header ${JSON.stringify(value)} is not an HTTP field-name token (RFC 9110 §5.1: letters, digits and !#$%&'*+-.^_\`|~)`,
        );
      } else {
        const other = seen.get(value.toLowerCase());
        if (other !== undefined)
          problems.push(
            `${where}: x-mcp-header '${value}' is already used by parameter '${other}' (values are unique, case-insensitively)`,
          );
        else seen.set(value.toLowerCase(), path.join('.'));
        if (typeof s.type !== 'string' || !PRIMITIVE.has(s.type)) {
          problems.push(
            `${where}: x-mcp-header is only allowed on string, integer or boolean parameters (this one is ${JSON.stringify(s.type ?? 'untyped')}; number is not allowed)`,
          );
        }
      }
    }
    for (const [key, value] of Object.entries(s)) {
      if (key === 'x-mcp-header' || DATA_KEYWORDS.has(key)) continue;
      if (key === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
        for (const [name, sub] of Object.entries(value as Record<string, unknown>)) visit(sub, [...path, name], reachable);
      } else {
        visit(value, path, false);
      }
    }
  };
  visit(schema, [], true);
  return problems;
}
