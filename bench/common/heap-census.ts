import { getHeapSnapshot } from 'node:v8';
import { settledMemory } from './rss.js';

/** Objects on the V8 heap grouped by kind: `object:FwResource`, `string`, `array:`… → count and bytes. */
export type HeapCensus = Record<string, { count: number; bytes: number }>;

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Node types whose name is their content (a string's text, a number's value), grouped under the type alone. */
const BY_TYPE = new Set(['string', 'concatenated string', 'sliced string', 'number', 'hidden', 'code']);

/**
 * Takes a heap snapshot after the heap has settled and counts what is on it by constructor (or
 * node type). Two censuses of one server, before and after N connections, give the heap each
 * connection costs, object by object: the precise view behind bench/scale's RSS per connection.
 */
export async function heapCensus(): Promise<HeapCensus> {
  await settledMemory();
  const chunks: Buffer[] = [];
  for await (const c of getHeapSnapshot()) chunks.push(c as Buffer);
  const s = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const census: HeapCensus = {};
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + typeAt]!]!;
    const key = BY_TYPE.has(type) ? type : `${type}:${s.strings[s.nodes[i + nameAt]!]!.slice(0, 60)}`;
    const e = (census[key] ??= { count: 0, bytes: 0 });
    e.count++;
    e.bytes += s.nodes[i + sizeAt]!;
  }
  return census;
}
