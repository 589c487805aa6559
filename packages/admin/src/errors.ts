import { FwError } from '@fw/runtime';

export class UnauthorizedError extends FwError {
  constructor(detail = 'the admin plane requires authentication') {
    super('unauthorized', detail, 401);
  }
}

export class ForbiddenError extends FwError {
  constructor(action: string, target: string) {
    super('forbidden', `not allowed to ${action} '${target}'`, 403, { action, target });
  }
}
