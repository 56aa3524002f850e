import {
  type EndpointBodyInput,
  type EndpointDescriptor,
  type EndpointParams,
  type EndpointQueryInput,
  type EndpointResponse,
  Endpoints,
  fillPath,
} from '@cordon/shared';

/**
 * A non-2xx answer of the API, or an answer that does not match the endpoint's response schema.
 * `code` is the API's stable error code (docs/api.md "Errors", e.g. `ERR_NOT_FOUND`), or
 * `ERR_NETWORK` when no answer came and `ERR_CONTRACT` when the answer did not parse; `fields` holds
 * per-field messages of a 400.
 */
export class CordonApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: Readonly<Record<string, string>> | undefined;

  constructor(status: number, code: string, message: string, fields?: Record<string, string>) {
    super(message);
    this.name = 'CordonApiError';
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

/** One part of a call's input: absent when the endpoint has none, optional when every field may be left out. */
type InputPart<K extends string, T> = [T] extends [undefined]
  ? { [P in K]?: never }
  : Record<never, never> extends T
    ? { [P in K]?: T }
    : { [P in K]: T };

/** What a call of endpoint `E` sends: `params` fill its path's `:name`s, `query` and `body` its schemas' inputs. */
export type CallInput<E extends EndpointDescriptor> = InputPart<'params', EndpointParams<E>> &
  InputPart<'query', EndpointQueryInput<E>> &
  InputPart<'body', EndpointBodyInput<E>>;

/** The arguments of `call`: the input is optional when the endpoint needs none. */
export type CallArgs<E extends EndpointDescriptor> =
  Record<never, never> extends CallInput<E> ? [input?: CallInput<E>] : [input: CallInput<E>];

/** Every endpoint of `Endpoints` as a method: `client.api.customers.create({ body })`. */
export type Namespaces = {
  readonly [R in keyof typeof Endpoints]: {
    readonly [N in keyof (typeof Endpoints)[R]]: (typeof Endpoints)[R][N] extends infer E extends EndpointDescriptor
      ? (...args: CallArgs<E>) => Promise<EndpointResponse<E>>
      : never;
  };
};

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** The deployment's URL, e.g. `https://cordon.example.net` (the client appends `/restapi`). */
  readonly baseUrl: string;
  /** An API token (`cdn_…`, docs/api.md "API tokens"), sent as `Authorization: Bearer`. */
  readonly token: string;
  /** The fetch to use; default the global one (Node 18+). */
  readonly fetch?: typeof fetch;
}

/** A Cordon API client. */
export interface CordonClient {
  /**
   * Calls `endpoint` (a descriptor of `Endpoints`, the same the server registers) and parses the
   * answer with its response schema.
   * @throws CordonApiError on a non-2xx answer (with the API's `code`), a network failure or an answer off the contract
   * @throws Error when a `:name` of the path has no value in `params`
   */
  call<E extends EndpointDescriptor>(endpoint: E, ...args: CallArgs<E>): Promise<EndpointResponse<E>>;
  /** The same calls by resource and name, e.g. `api.locations.createStaticIp({ params, body })`. */
  readonly api: Namespaces;
}

/** `path?query` with `undefined`/`null` left out and arrays repeated (`k=a&k=b`). */
function withQuery(path: string, query: Readonly<Record<string, unknown>> | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) params.append(k, String(item));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/**
 * A typed client of the `/restapi` API for automation (packages/sdk/README.md): every call is typed
 * from the endpoint descriptors of `@cordon/shared` (zod inputs in, the response schema's output
 * back) and authenticated with an API token.
 */
export function createClient(options: ClientOptions): CordonClient {
  const base = `${options.baseUrl.replace(/\/+$/, '')}/restapi`;
  const doFetch = options.fetch ?? fetch;

  async function call<E extends EndpointDescriptor>(endpoint: E, ...args: CallArgs<E>): Promise<EndpointResponse<E>> {
    const input = (args[0] ?? {}) as {
      params?: Record<string, unknown>;
      query?: Record<string, unknown>;
      body?: unknown;
    };
    const url = base + withQuery(fillPath(endpoint.path, input.params), input.query);
    const headers: Record<string, string> = { authorization: `Bearer ${options.token}`, accept: 'application/json' };
    if (input.body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await doFetch(url, {
        method: endpoint.method,
        headers,
        ...(input.body === undefined ? {} : { body: JSON.stringify(input.body) }),
      });
    } catch (err) {
      throw new CordonApiError(0, 'ERR_NETWORK', `Cordon API unreachable: ${(err as Error).message}`);
    }
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    if (!res.ok) {
      const env = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      throw new CordonApiError(
        res.status,
        typeof env['code'] === 'string' ? env['code'] : `HTTP_${res.status}`,
        typeof env['error'] === 'string' ? env['error'] : `HTTP ${res.status}`,
        (env['fields'] as Record<string, string> | undefined) ?? undefined,
      );
    }
    const parsed = endpoint.response.safeParse(body);
    if (!parsed.success) {
      throw new CordonApiError(
        res.status,
        'ERR_CONTRACT',
        `Answer of ${endpoint.method} ${endpoint.path} off the contract`,
      );
    }
    return parsed.data as EndpointResponse<E>;
  }

  const api = Object.fromEntries(
    Object.entries(Endpoints).map(([resource, group]) => [
      resource,
      Object.fromEntries(
        Object.entries(group as Record<string, EndpointDescriptor>).map(([name, endpoint]) => [
          name,
          (input?: unknown) => (call as (e: EndpointDescriptor, i?: unknown) => Promise<unknown>)(endpoint, input),
        ]),
      ),
    ]),
  ) as unknown as Namespaces;

  return { call, api };
}
