import { FwError } from '@fw/runtime';

export class UnauthorizedError extends FwError {
  constructor(detail = 'the admin plane requires authentication') {
    super('unauthorized', detail, 401);
  }
}

export class ForbiddenError extends FwError {
  /** `node`: in cluster mode, the node whose rules refused (the one that holds the target). */
  constructor(action: string, target: string, code = 'forbidden', reason?: string, node?: string) {
    super(code, `not allowed to ${action} '${target}'${reason ? `: ${reason}` : ''}`, 403, { action, target, ...(node ? { node } : {}) });
  }
}
