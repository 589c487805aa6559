import { FwError, NotFoundError } from '@fw/runtime';
import type { ControlResult } from '@fw/runtime/adapter';

/** A routed action's result, or the error the admin API answers with (404, or 504 naming the silent nodes). */
export function settled<T>(r: ControlResult<T>, what: string, id: string): ControlResult<T> {
  if (r.outcome === 'done') return r;
  if (r.outcome === 'not_found') throw new NotFoundError(what, id);
  throw new FwError(
    'node_unreachable',
    `${what} '${id}' is on no node that answered; ${r.missing.join(', ')} did not answer in time`,
    504,
    { missing: r.missing },
  );
}
