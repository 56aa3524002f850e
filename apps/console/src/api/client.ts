import { type ApiErrorBody, ErrorTexts, Messages } from '@cordon/shared';
import type { z } from 'zod';
import type { ResponseOutcome } from '../app/errors/responseReaction.ts';

/** The API base (spec §7; DESIGN.md §5): same origin, under `/restapi`. */
export const API_BASE = '/restapi';

/**
 * A failed API call. `kind` says why: an HTTP error answer (`status`, the server's `error` text,
 * its stable `code` and per-field messages), a network failure, a request cancelled locally
 * (spec §5: user id 0, `blockpage/0`) or an answer that does not match the shared contract.
 */
export class ApiError extends Error {
  readonly kind: 'http' | 'network' | 'cancelled' | 'contract';
  readonly status: number;
  readonly code: string | null;
  readonly fields: Record<string, string> | undefined;

  constructor(
    kind: ApiError['kind'],
    message: string,
    opts: { status?: number; code?: string | null; fields?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.kind = kind;
    this.status = opts.status ?? 0;
    this.code = opts.code ?? null;
    this.fields = opts.fields;
  }
}

/** Query-string values; `undefined` and `null` are left out. */
export type QueryParams = Record<string, string | number | boolean | null | undefined>;

/** Options of one call. `headers` override the bearer header (the login sends Basic credentials). */
export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  query?: QueryParams;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** The console's API client: every call goes through `request`, which parses the answer with a shared schema. */
export interface ApiClient {
  request<S extends z.ZodType>(path: string, schema: S, options?: RequestOptions): Promise<z.output<S>>;
}

/** Dependencies of the client: the current token and the global response handler (spec §8). */
export interface ApiClientOptions {
  getToken: () => string | null;
  onOutcome: (outcome: ResponseOutcome) => void;
  fetchImpl?: typeof fetch;
  baseUrl?: string;
}

/**
 * True for paths the console must cancel locally (spec §5): any path carrying user id 0
 * (`/users/0…` or `user_id=0`) and `blockpage/0`.
 */
export function isCancelledLocally(pathWithQuery: string): boolean {
  return (
    /\/users\/0(?=[/?#]|$)/.test(pathWithQuery) ||
    /[?&]user_id=0(?=[&#]|$)/.test(pathWithQuery) ||
    /blockpage\/0(?=[/?#]|$)/.test(pathWithQuery)
  );
}

/** Builds `path?query` from a path and query values. */
export function withQuery(path: string, query: QueryParams | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** True when an answer body is the API's error envelope `{ error, code, fields? }` (DESIGN.md §5). */
export function isApiErrorBody(body: unknown): body is ApiErrorBody {
  if (typeof body !== 'object' || body === null) return false;
  const { error, code, fields } = body as Record<string, unknown>;
  return (
    typeof error === 'string' &&
    typeof code === 'string' &&
    (fields === undefined || (typeof fields === 'object' && fields !== null && !Array.isArray(fields)))
  );
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Creates the API client: base `/restapi`, credentials included, bearer header once a token is
 * set, JSON bodies, errors parsed into `ApiError`, and every outcome reported to `onOutcome` so the
 * global handling of spec §8 runs once per response.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = options.baseUrl ?? API_BASE;
  const doFetch = options.fetchImpl ?? ((input, init) => fetch(input, init));

  return {
    async request(path, schema, opts = {}) {
      const target = withQuery(path, opts.query);
      if (isCancelledLocally(target)) {
        options.onOutcome({ type: 'cancelled' });
        throw new ApiError('cancelled', Messages.userNotFound);
      }
      const headers: Record<string, string> = { Accept: 'application/json' };
      const token = options.getToken();
      if (token) headers['Authorization'] = `Bearer ${token}`;
      if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
      Object.assign(headers, opts.headers);

      let res: Response;
      try {
        res = await doFetch(`${base}${target}`, {
          method: opts.method ?? 'GET',
          credentials: 'include',
          headers,
          ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
          ...(opts.signal ? { signal: opts.signal } : {}),
        });
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        options.onOutcome({ type: 'network' });
        throw new ApiError('network', ErrorTexts.connectionLost);
      }

      const body = await readBody(res);
      if (!res.ok) {
        const envelope = isApiErrorBody(body) ? body : null;
        const text = envelope ? envelope.error : typeof body === 'string' ? body : '';
        options.onOutcome({ type: 'http', status: res.status, text });
        throw new ApiError('http', text || ErrorTexts.somethingWentWrong, {
          status: res.status,
          code: envelope ? envelope.code : null,
          ...(envelope?.fields ? { fields: envelope.fields } : {}),
        });
      }
      options.onOutcome({ type: 'success' });
      const result = schema.safeParse(body);
      if (!result.success) {
        console.error(`Response of ${target} does not match the contract`, result.error.issues);
        throw new ApiError('contract', ErrorTexts.somethingWentWrong, { status: res.status });
      }
      return result.data;
    },
  };
}
