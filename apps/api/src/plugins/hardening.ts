import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, type ApiErrorBody } from '@cordon/shared';
import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';

/** Headers of a probe answer that are not security headers. */
const NOT_SECURITY_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);

/**
 * The security headers Helmet sends with `options` (docs/security.md), captured once from a probe app, for
 * the answers written before Fastify's hooks run (a malformed URL, a request Node's HTTP parser refuses).
 * @returns lower-case header name → value
 */
export async function captureSecurityHeaders(options: FastifyHelmetOptions): Promise<Record<string, string>> {
  const probe = Fastify({ logger: false });
  await probe.register(fastifyHelmet, options);
  probe.get('/', async () => '');
  try {
    const res = await probe.inject({ method: 'GET', url: '/' });
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(res.headers)) {
      if (!NOT_SECURITY_HEADERS.has(name) && value !== undefined) out[name] = String(value);
    }
    return out;
  } finally {
    await probe.close();
  }
}

/**
 * Fastify's `frameworkErrors`: a URL the router cannot decode (`/restapi/%`), a path parameter longer
 * than the router allows, or a failing constraint. Answered in the one error envelope (docs/api.md)
 * with the security headers, never echoing the URL.
 */
export function frameworkErrorHandler(
  headers: Record<string, string>,
): (error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, _request, reply) => {
    const apiError =
      error.code === 'FST_ERR_ASYNC_CONSTRAINT'
        ? new ApiError('ERR_INTERNAL')
        : new ApiError('ERR_VALIDATION', 'The request URL is malformed.');
    void reply.headers(headers).header('cache-control', 'no-store').status(apiError.status).send(apiError.toBody());
  };
}

/** The status, and envelope, of a request Node's HTTP parser refused. */
function clientErrorAnswer(code: string | undefined): { status: number; body: ApiErrorBody } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, body: new ApiError('ERR_HEADERS_TOO_LARGE').toBody() };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, body: new ApiError('ERR_TIMEOUT').toBody() };
  return { status: 400, body: new ApiError('ERR_VALIDATION', 'The request is malformed.').toBody() };
}

/**
 * Fastify's `clientErrorHandler` (Node's `clientError` event): headers over `maxHeaderSize` → 431, a
 * request timeout → 408, any other unparsable request → 400; written by hand (no Fastify reply exists
 * yet) in the error envelope with the security headers, then the connection is closed. Logs only the
 * parser's code at debug level: the error carries the raw request bytes, Authorization included.
 */
export function clientErrorHandler(
  headers: Record<string, string>,
): (this: FastifyInstance, error: Error & { code?: string }, socket: Duplex) => void {
  return function handle(error, socket) {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    this.log.debug({ code: error.code }, 'client error');
    const { status, body } = clientErrorAnswer(error.code);
    const json = JSON.stringify(body);
    const lines = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      'cache-control: no-store',
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(json)}`,
      'connection: close',
    ];
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(`${lines.join('\r\n')}\r\n\r\n${json}`, () => socket.destroy());
  };
}

/** Query parameters whose values are secrets (PKCE verifier, OAuth state and code, 2FA secret, tokens). */
const SECRET_PARAMS = /^(code_verifier|code_challenge|state|code|secret|password|token|access_token|key)$/i;

/**
 * A URL as logged: the query string of the login (`/oauth/authorize`) is dropped whole; elsewhere the
 * values of {@link SECRET_PARAMS} are replaced by `[Redacted]`.
 */
export function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const path = url.slice(0, q);
  if (/\/oauth\/authorize\/?$/.test(path)) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq >= 0 && SECRET_PARAMS.test(decodeURIComponentSafe(name)) ? `${name}=[Redacted]` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Paths pino blanks wherever they appear (a second line of defence behind the request serializer). */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.query',
  'req.body',
  'headers.authorization',
  'headers.cookie',
  'query.code_verifier',
  'query.code',
  'query.state',
  'query.secret',
  'password',
  'admin_password',
  'secret',
  'code_verifier',
  '*.password',
  '*.admin_password',
  '*.secret',
  '*.code_verifier',
];

/**
 * Fastify's logger options for `logger` (false → no logging): the caller's pino options plus a request
 * serializer that never logs headers, bodies or secret query values ({@link loggableUrl}), and pino
 * `redact` paths for secrets (docs/security.md "no secrets in logs").
 */
export function loggerOptions(logger: boolean | object | undefined): FastifyServerOptions['logger'] {
  if (!logger) return false;
  const base = (logger === true ? {} : logger) as { serializers?: Record<string, unknown> };
  return {
    ...base,
    serializers: {
      ...base.serializers,
      req: (req: FastifyRequest) => ({
        method: req.method,
        url: loggableUrl(req.url),
        host: req.host,
        remoteAddress: req.ip,
      }),
    },
    redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
  } as FastifyServerOptions['logger'];
}

/**
 * Which proxies' `X-Forwarded-For` names the client (`--trust-proxy`): false (the socket's peer is the
 * client), true (any), a hop count (the nearest N hops, whoever they are: only when nothing reaches Cordon
 * but through them), or the addresses/CIDRs of trusted proxies.
 */
export type TrustProxy = boolean | number | readonly string[];

/**
 * Fastify's `trustProxy` for a {@link TrustProxy}. A hop count becomes a function trusting the first N
 * hops (Fastify's own numeric form trusts nothing since it cannot check the peer).
 */
export function trustProxyOption(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  if (typeof trust === 'boolean') return trust;
  return [...trust];
}

/**
 * Adds `Cache-Control: no-store` to every answer of `app`'s context that sets no cache policy itself:
 * the token answer and authenticated JSON must not be kept by browsers or proxies (RFC 9111 §5.2.2.5).
 */
export function addNoStore(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
}
