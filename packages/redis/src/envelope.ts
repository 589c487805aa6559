/**
 * The broadcast envelope on the Redis channel: `<bid> <node> <length of id> <broadcaster id><payload>`.
 * The publish script prepends the `bid` it assigned; the payload is carried verbatim after a
 * length-prefixed broadcaster id, so neither is escaped or parsed as JSON on the hot path.
 */
export interface Envelope {
  bid: number;
  node: string;
  broadcaster: string;
  payload: string;
}

/** What the publishing node sends (the script adds `<bid> ` in front). */
export function encodeBody(node: string, broadcaster: string, payload: string): string {
  return `${node} ${broadcaster.length} ${broadcaster}${payload}`;
}

/** Parses a channel message; undefined when it is not an envelope (never throws). */
export function decodeEnvelope(message: string): Envelope | undefined {
  const a = message.indexOf(' ');
  const b = message.indexOf(' ', a + 1);
  const c = message.indexOf(' ', b + 1);
  if (a <= 0 || b <= a + 1 || c <= b + 1) return undefined;
  const bid = Number(message.slice(0, a));
  const length = Number(message.slice(b + 1, c));
  if (!Number.isSafeInteger(bid) || bid < 1 || !Number.isSafeInteger(length) || length < 1) return undefined;
  const start = c + 1;
  if (start + length > message.length) return undefined;
  return {
    bid,
    node: message.slice(a + 1, b),
    broadcaster: message.slice(start, start + length),
    payload: message.slice(start + length),
  };
}
