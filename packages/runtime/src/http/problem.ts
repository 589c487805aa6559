import type { ServerResponse } from 'node:http';
import { FwError } from '../errors.js';

/** RFC 9457 problem details, with fw's stable `code` as an extension member. */
export interface Problem {
  type?: string;
  title: string;
  status: number;
  detail?: string;
  code: string;
  [extension: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  421: 'Misdirected Request',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function problem(status: number, code: string, detail?: string, extra?: Record<string, unknown>): Problem {
  return { type: 'about:blank', title: TITLES[status] ?? 'Error', status, code, ...(detail ? { detail } : {}), ...extra };
}

/** Writes a problem+json response. Safe to call when headers were already sent (it then just ends). */
export function sendProblem(
  res: ServerResponse,
  status: number,
  code: string,
  detail?: string,
  extra?: Record<string, unknown>,
  headers?: Record<string, string>,
): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const body = JSON.stringify(problem(status, code, detail, extra));
  res.writeHead(status, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
}

/** Maps any thrown value to a problem response: FwErrors keep their status and code; the rest are 500s. */
export function sendError(res: ServerResponse, err: unknown): void {
  if (err instanceof FwError) {
    sendProblem(res, err.status, err.code, err.message, err.details, err.headers);
  } else {
    sendProblem(res, 500, 'internal_error', 'an internal error occurred');
  }
}
