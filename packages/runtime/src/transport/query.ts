import { FwError } from '../errors.js';
import type { TransportName } from '../events.js';

/** The fw protocol's query parameters, validated (docs/protocol.md). */
export interface ConnectQuery {
  fw: boolean;
  transport: TransportName | undefined;
  tracking: string | undefined;
  last: number | undefined;
  since: Map<string, number> | undefined;
  /** The epoch the `since` cursors were taken in (from an earlier handshake). */
  epoch: string | undefined;
  /** `ids=implicit`: the client numbers frames without an `id` itself (WebSocket only; docs/protocol.md, *Implicit ids*). */
  implicitIds: boolean;
}

const TRANSPORTS = new Set<string>(['websocket', 'sse', 'long-polling', 'streaming']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_SINCE = 4096;

/** Throws a 400 FwError `invalid_query` naming the parameter for any malformed value. */
export function parseConnectQuery(q: URLSearchParams, forConnect = true): ConnectQuery {
  const fwRaw = q.get('fw');
  let fw = false;
  if (fwRaw !== null) {
    if (fwRaw === '1' || fwRaw === 'true') fw = true;
    else if (fwRaw !== '0' && fwRaw !== 'false') throw invalid('fw', 'must be 1 or 0');
  }
  const t = q.get('transport');
  if (t !== null && !TRANSPORTS.has(t)) throw invalid('transport', 'must be websocket, sse, long-polling or streaming');
  const tracking = q.get('tracking') ?? undefined;
  if (tracking !== undefined && !UUID.test(tracking)) throw invalid('tracking', 'must be a uuid');
  const lastRaw = q.get('last');
  let last: number | undefined;
  if (lastRaw !== null) {
    if (!/^\d{1,15}$/.test(lastRaw)) throw invalid('last', 'must be a non-negative integer');
    last = Number(lastRaw);
  }
  const sinceRaw = q.get('since');
  const since = sinceRaw === null ? undefined : parseSince(sinceRaw);
  if (forConnect && (tracking !== undefined || since !== undefined) && !fw) {
    throw new FwError('invalid_query', 'query parameters `tracking` and `since` need the fw protocol (`fw=1`)', 400, {
      parameter: tracking !== undefined ? 'tracking' : 'since',
    });
  }
  const epoch = q.get('epoch') ?? undefined;
  if (epoch !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(epoch)) throw invalid('epoch', 'must be 1–64 base64url characters');
  const ids = q.get('ids');
  if (ids !== null && ids !== 'implicit') throw invalid('ids', 'must be implicit');
  return { fw, transport: t === null ? undefined : (t as TransportName), tracking, last, since, epoch, implicitIds: ids !== null && fw };
}

/**
 * `seq` of a message POST: the client's sequence number of the message (a positive integer), its
 * idempotency key together with `tracking`. Absent: not numbered (an older client).
 */
export function parseSeq(q: URLSearchParams): number | undefined {
  const raw = q.get('seq');
  if (raw === null) return undefined;
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw invalid('seq', 'must be a positive integer');
  return Number(raw);
}

function parseSince(raw: string): Map<string, number> {
  if (raw.length > MAX_SINCE || !/^[A-Za-z0-9_-]*={0,2}$/.test(raw)) throw invalid('since', 'must be base64url JSON');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid('since', 'must be base64url JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('since', 'must encode an object');
  const out = new Map<string, number>();
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
      throw invalid('since', `value for '${k}' must be a non-negative integer`);
    out.set(k, v);
  }
  return out;
}

function invalid(parameter: string, why: string): FwError {
  return new FwError('invalid_query', `query parameter '${parameter}' ${why}`, 400, { parameter });
}
