/**
 * Every error fw throws on purpose is an FwError: a stable machine-readable `code` plus the HTTP
 * status it maps to when it crosses an HTTP boundary. Callers switch on `code`, never on message.
 */
export class FwError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  private readonly extraHeaders: Record<string, string> | undefined;

  constructor(code: string, message: string, status = 500, details?: Record<string, unknown>, headers?: Record<string, string>) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.details = details;
    this.extraHeaders = headers;
  }

  /** Extra response headers for the answer (`Retry-After` on a 503 while draining, a challenge on a 401). */
  get headers(): Record<string, string> | undefined {
    return this.extraHeaders;
  }
}

export class NotFoundError extends FwError {
  constructor(what: string, id: string) {
    super('not_found', `${what} '${id}' was not found`, 404, { what, id });
  }
}

export class BadRequestError extends FwError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('bad_request', message, 400, details);
  }
}

export class LimitExceededError extends FwError {
  constructor(limit: string, value: number, message?: string) {
    super('limit_exceeded', message ?? `limit '${limit}' (${value}) exceeded`, 429, { limit, value });
  }
}
