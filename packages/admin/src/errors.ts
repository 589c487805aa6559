import { FwError } from '@fw/runtime';

export class UnauthorizedError extends FwError {
  constructor(detail = 'the admin plane requires authentication') {
    super('unauthorized', detail, 401);
  }
}

export class ForbiddenError extends FwError {
  constructor(action: string, target: string, code = 'forbidden', reason?: string) {
    super(code, `not allowed to ${action} '${target}'${reason ? `: ${reason}` : ''}`, 403, { action, target });
  }
}
