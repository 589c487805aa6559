/**
 * How deeply a JSON text nests, found by one linear pass over its characters (strings skipped,
 * escapes honoured) without parsing it. `JSON.parse` itself copes with deep input, but whatever
 * walks the result afterwards (schema validation, `JSON.stringify`, structured clone) recurses
 * and overflows the stack; checking first means a 10,000-level body costs one scan and a 400.
 * Returns true as soon as the depth passes `max`; malformed text is left to `JSON.parse`.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}
