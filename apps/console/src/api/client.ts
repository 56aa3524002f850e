import {
  type ApiErrorBody,
  type EndpointBodyInput,
  type EndpointDescriptor,
  type EndpointParams,
  type EndpointQueryInput,
  type EndpointResponse,
  ErrorTexts,
  fillPath,
  Messages,
} from '@cordon/shared';
import type { z } from 'zod';

/** The API base (spec-notes §7; docs/api.md): same origin, under `/restapi`. */
export const API_BASE = '/restapi';

/**
 * A failed API call (named apart from `@cordon/shared`'s `ApiError`, the server's error class).
 * `kind` says why: an HTTP error answer (`status`, the server's `error` text, its stable `code` and
 * per-field messages), a network failure, a request cancelled locally (spec-notes §5: user id 0,
 * `blockpage/0`) or an answer that does not match the shared contract.
 */
export class ApiCallError extends Error {
  readonly kind: 'http' | 'network' | 'cancelled' | 'contract';
  readonly status: number;
  readonly code: string | null;
  readonly fields: Record<string, string> | undefined;

  constructor(
    kind: ApiCallError['kind'],
    message: string,
    opts: { status?: number; code?: string | null; fields?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiCallError';
    this.kind = kind;
    this.status = opts.status ?? 0;
    this.code = opts.code ?? null;
    this.fields = opts.fields;
  }
}

/** What happened to one API call, as the global response handling sees it (spec-notes §8). */
export type ResponseOutcome =
  | { type: 'success' }
  | { type: 'network' }
  | { type: 'cancelled' }
  /** `fields`: the 400 answer names the fields at fault (the form shows each under its field). */
  | { type: 'http'; status: number; text: string; fields?: true };

/**
 * One part of a call's input: absent (`never`) when the endpoint has no such schema, optional when
 * every field of it may be left out (defaults), else required.
 */
type InputPart<K extends string, T> = [T] extends [undefined]
  ? { [P in K]?: never }
  : Record<never, never> extends T
    ? { [P in K]?: T }
    : { [P in K]: T };

/**
 * What a call of endpoint `E` sends: `params` fill the `:name`s of its path (ids as numbers),
 * `query` and `body` are the inputs of its schemas (fields with defaults may be left out).
 */
export type EndpointInput<E extends EndpointDescriptor> = InputPart<'params', EndpointParams<E>> &
  InputPart<'query', EndpointQueryInput<E>> &
  InputPart<'body', EndpointBodyInput<E>>;

/**
 * Per-call transport options. `headers` override the bearer header (the login sends Basic credentials).
 * `form` sends a multipart body instead of JSON (the CSV imports of spec-notes §7 "Domains", field `csv`):
 * no `Content-Type` is set, so the browser writes `multipart/form-data` with its boundary.
 * `onHeaders` receives the answer's headers of a successful call (a download's
 * `Content-Disposition` file name).
 */
export interface CallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
  form?: FormData;
  onHeaders?: (headers: Headers) => void;
}

/** The input of `call`, optional when the endpoint needs none. */
export type CallArgs<E extends EndpointDescriptor> =
  Record<never, never> extends EndpointInput<E>
    ? [input?: EndpointInput<E> & CallOptions]
    : [input: EndpointInput<E> & CallOptions];

/** The console's API client: every call names its endpoint descriptor (`Endpoints.<resource>.<name>`). */
export interface ApiClient {
  /**
   * Calls `endpoint` and parses the answer with `endpoint.response` (docs/architecture.md "Layers" "endpoint
   * descriptors"). Every outcome is reported once to the global response handling (spec-notes §8).
   * @throws ApiCallError on an HTTP error, a network failure, a local cancellation or a contract mismatch
   * @throws Error when a `:name` of the path has no value in `params` (a programming error)
   * @throws Error when both `body` and `form` are given (a programming error)
   */
  call<E extends EndpointDescriptor>(endpoint: E, ...args: CallArgs<E>): Promise<EndpointResponse<E>>;
}

/** Dependencies of the client: the current token and the global response handler (spec-notes §8). */
export interface ApiClientOptions {
  getToken: () => string | null;
  onOutcome: (outcome: ResponseOutcome) => void;
  fetchImpl?: typeof fetch;
  baseUrl?: string;
}

/**
 * True for paths the console must cancel locally (spec-notes §5): any path carrying user id 0
 * (`/users/0…` or `user_id=0`) and `blockpage/0`.
 */
export function isCancelledLocally(pathWithQuery: string): boolean {
  return (
    /\/users\/0(?=[/?#]|$)/.test(pathWithQuery) ||
    /[?&]user_id=0(?=[&#]|$)/.test(pathWithQuery) ||
    /blockpage\/0(?=[/?#]|$)/.test(pathWithQuery)
  );
}

/** Builds `path?query` from a path and query values; `undefined` and `null` are left out. */
export function withQuery(path: string, query: Readonly<Record<string, unknown>> | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** True when an answer body is the API's error envelope `{ error, code, fields? }` (docs/api.md). */
export function isApiErrorBody(body: unknown): body is ApiErrorBody {
  if (typeof body !== 'object' || body === null) return false;
  const { error, code, fields } = body as Record<string, unknown>;
  return (
    typeof error === 'string' &&
    typeof code === 'string' &&
    (fields === undefined || (typeof fields === 'object' && fields !== null && !Array.isArray(fields)))
  );
}

/** The answer's body: JSON when it parses as JSON, else its text; a CSV download always as text. */
async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return undefined;
  if (/^text\/csv\b/i.test(res.headers.get('content-type') ?? '')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The untyped view of a call's input, once the endpoint's types have been checked at the call site. */
interface RawInput extends CallOptions {
  params?: Readonly<Record<string, unknown>>;
  query?: Readonly<Record<string, unknown>>;
  body?: unknown;
}

/**
 * Creates the API client: base `/restapi`, credentials included, bearer header once a token is
 * set, JSON bodies (or a multipart `form`), errors parsed into `ApiCallError`, and every outcome reported to `onOutcome`
 * so the global handling of spec-notes §8 runs once per response.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = options.baseUrl ?? API_BASE;
  const doFetch = options.fetchImpl ?? ((input, init) => fetch(input, init));

  async function send(endpoint: EndpointDescriptor, input: RawInput): Promise<unknown> {
    const target = withQuery(fillPath(endpoint.path, input.params), input.query);
    if (isCancelledLocally(target)) {
      options.onOutcome({ type: 'cancelled' });
      throw new ApiCallError('cancelled', Messages.userNotFound);
    }
    const headers: Record<string, string> = { Accept: 'application/json' };
    const token = options.getToken();
    if (token) headers['Authorization'] = `Bearer ${token}`;
    if (input.form !== undefined && input.body !== undefined)
      throw new Error('A call sends a body or a form, not both');
    if (input.body !== undefined) headers['Content-Type'] = 'application/json';
    Object.assign(headers, input.headers);
    const payload = input.form ?? (input.body !== undefined ? JSON.stringify(input.body) : undefined);

    let res: Response;
    try {
      res = await doFetch(`${base}${target}`, {
        method: endpoint.method,
        credentials: 'include',
        headers,
        ...(payload !== undefined ? { body: payload } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
      });
    } catch (err) {
      if (input.signal?.aborted) throw err;
      options.onOutcome({ type: 'network' });
      throw new ApiCallError('network', ErrorTexts.connectionLost);
    }

    const body = await readBody(res);
    if (!res.ok) {
      const envelope = isApiErrorBody(body) ? body : null;
      const text = envelope ? envelope.error : typeof body === 'string' ? body : '';
      options.onOutcome({ type: 'http', status: res.status, text, ...(envelope?.fields ? { fields: true } : {}) });
      throw new ApiCallError('http', text || ErrorTexts.somethingWentWrong, {
        status: res.status,
        code: envelope ? envelope.code : null,
        ...(envelope?.fields ? { fields: envelope.fields } : {}),
      });
    }
    options.onOutcome({ type: 'success' });
    input.onHeaders?.(res.headers);
    const result = (endpoint.response as z.ZodType).safeParse(body);
    if (!result.success) {
      console.error(`Response of ${endpoint.method} ${target} does not match the contract`, result.error.issues);
      throw new ApiCallError('contract', ErrorTexts.somethingWentWrong, { status: res.status });
    }
    return result.data;
  }

  return {
    call: (endpoint, ...args) => send(endpoint, (args[0] ?? {}) as RawInput) as Promise<never>,
  };
}
