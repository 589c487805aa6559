// The admin REST client: JSON in and out, problem+json errors turned into ApiError, the bearer
// token from sessionStorage, and one place that notices a 401 (the page then asks to sign in).

const TOKEN_KEY = 'fw.admin.token';

function meta(name, fallback) {
  return document.querySelector(`meta[name="${name}"]`)?.getAttribute('content') || fallback;
}

export const API_BASE = meta('fw-admin-api', '/api/admin/');
export const EVENTS_PATH = meta('fw-admin-events', '/fw/admin/events');
export const CLIENT_PATH = meta('fw-client', '/fw/client.js');

export class ApiError extends Error {
  /** `status` 0 means the server could not be reached. */
  constructor(status, code, title, detail) {
    super(detail || title || `HTTP ${status}`);
    this.status = status;
    this.code = code;
    this.title = title;
    this.detail = detail;
  }
}

export const auth = {
  get token() {
    try {
      return sessionStorage.getItem(TOKEN_KEY) || '';
    } catch {
      return '';
    }
  },
  set token(value) {
    try {
      if (value) sessionStorage.setItem(TOKEN_KEY, value);
      else sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      /* storage disabled: the token lives as long as the page */
    }
  },
  /** Called with the error when the API answers 401. */
  onUnauthorized: (_err) => {},
  /** Called after each request with whether the server answered at all. */
  onReachability: (_reachable) => {},
};

function buildUrl(path, query) {
  const url = new URL(API_BASE + path.replace(/^\//, ''), location.origin);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null || v === '') continue;
    url.searchParams.set(k, String(v));
  }
  return url;
}

/** Encodes one path segment (broadcaster ids contain slashes). */
export const seg = (s) => encodeURIComponent(String(s));

/**
 * Calls the API. Returns `{ data, total, status }`; `total` comes from `X-Total-Count` when the
 * endpoint pages. Throws ApiError for any non-2xx answer or a network failure.
 */
/**
 * @typedef {{ method?: string, query?: Record<string, unknown>, body?: unknown, text?: boolean, signal?: AbortSignal }} RequestOptions
 * @param {string} path
 * @param {RequestOptions} [options]
 * @returns {Promise<{ data: any, total: number | undefined, status: number }>}
 */
export async function request(path, { method = 'GET', query, body, text = false, signal } = {}) {
  const headers = { Accept: text ? 'text/plain, application/problem+json' : 'application/json, application/problem+json' };
  const token = auth.token;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  // Lets the server audit writes from this page as source `dashboard`.
  headers['X-Fw-Admin-Client'] = 'dashboard';
  let res;
  try {
    res = await fetch(buildUrl(path, query), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'same-origin',
      signal,
    });
  } catch (err) {
    if (err instanceof Error && err.name === 'AbortError') throw err;
    auth.onReachability(false);
    throw new ApiError(0, 'network', 'Server unreachable', 'The admin API could not be reached.');
  }
  auth.onReachability(true);
  if (!res.ok) {
    let problem = {};
    try {
      problem = await res.json();
    } catch {
      /* not JSON: keep the status line */
    }
    const err = new ApiError(res.status, problem.code ?? `http_${res.status}`, problem.title ?? res.statusText, problem.detail ?? '');
    if (res.status === 401) auth.onUnauthorized(err);
    throw err;
  }
  const totalHeader = res.headers.get('X-Total-Count');
  const total = totalHeader === null ? undefined : Number(totalHeader);
  let data;
  if (res.status === 204) data = undefined;
  else if (text) data = await res.text();
  else {
    const raw = await res.text();
    data = raw ? JSON.parse(raw) : undefined;
  }
  return { data, total, status: res.status };
}

export const get = (path, query, opts) => request(path, { ...opts, query });

/** GET that answers `fallback` when the endpoint or its module is absent (404/501/503). */
export async function getOptional(path, query, fallback) {
  try {
    return (await get(path, query)).data ?? fallback;
  } catch (err) {
    if (err instanceof ApiError && [404, 501, 503].includes(err.status)) return fallback;
    throw err;
  }
}
