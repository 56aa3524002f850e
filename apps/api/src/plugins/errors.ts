import { isDatabaseBusy, isDatabaseUnreachable } from '@cordon/db';
import { ApiError, type ApiErrorBody, Messages } from '@cordon/shared';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

/** The path of a validation issue as a field name: `addresses.1`, `name`; `body` when the whole part is wrong. */
function fieldName(instancePath: string, context: string | undefined): string {
  const path = instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
  return path || (context ?? 'body');
}

/** True for a path parameter that holds a resource id (`id`, `locId`, `addrId`, …), not a value such as a date. */
function isIdParam(instancePath: string): boolean {
  return /^\/?(id|[A-Za-z]+Id)$/.test(instancePath);
}

/** The raw (unvalidated) path parameter an issue names. */
function paramOf(request: FastifyRequest, instancePath: string): unknown {
  return (request.params as Record<string, unknown> | undefined)?.[instancePath.replace(/^\//, '')];
}

/** True for text of decimal digits only. */
function isDecimal(value: unknown): boolean {
  return typeof value === 'string' && /^\d+$/.test(value);
}

/**
 * Turns any error into the one envelope `{ error, code, fields? }` (docs/api.md; docs/contributing.md "Conventions" 11).
 * Zod validation failures → 400 ERR_VALIDATION with each field's spec-notes §5 message (but a path id of
 * decimal digits naming nothing, such as `0`, → 404 ERR_NOT_FOUND); `ApiError` → its
 * status; Fastify's own 4xx (bad JSON, body too large) → 400; the database unreachable (a refused,
 * reset or terminated connection: `isDatabaseUnreachable` of @cordon/db) → 503 ERR_UNAVAILABLE,
 * logged at warn (docs/operations.md "When the database goes away"); SQLite busy past its timeout
 * (`isDatabaseBusy`: another process's long write) → 503 ERR_UNAVAILABLE; anything else → 500, logged,
 * with the spec-notes §8 text and no detail.
 */
export function toErrorBody(error: unknown, request: FastifyRequest): { status: number; body: ApiErrorBody } {
  if (error instanceof ApiError) return { status: error.status, body: error.toBody() };
  if (isDatabaseUnreachable(error)) {
    request.log.warn({ err: error }, 'database unreachable');
    return { status: 503, body: new ApiError('ERR_UNAVAILABLE').toBody() };
  }
  if (isDatabaseBusy(error)) {
    // Another process held SQLite's write lock past the busy timeout (an import): nothing was written.
    request.log.warn({ code: 'SQLITE_BUSY' }, 'database busy with another writer');
    return { status: 503, body: new ApiError('ERR_UNAVAILABLE').toBody() };
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const fields: Record<string, string> = {};
    const context = (error as { validationContext?: string }).validationContext;
    // A path id of decimal digits that cannot exist (0, or beyond any id) names a missing resource: 404,
    // as for an unknown id (docs/api.md: requests carrying user id 0 are refused with 404). Anything
    // else (`abc`, `-1`, `0x1`, `1e0`) is a malformed request: 400 below.
    if (
      context === 'params' &&
      error.validation.every((i) => isIdParam(i.instancePath) && isDecimal(paramOf(request, i.instancePath)))
    ) {
      return { status: 404, body: new ApiError('ERR_NOT_FOUND').toBody() };
    }
    for (const issue of error.validation) {
      const name = fieldName(issue.instancePath, context);
      fields[name] ??= issue.message ?? Messages.required;
    }
    // The toast shows `error`: the first field's message (spec-notes §5 text), the rest are in `fields`.
    const text = Object.values(fields)[0] ?? 'The request is not valid.';
    return { status: 400, body: new ApiError('ERR_VALIDATION', text, fields).toBody() };
  }
  const fe = error as Partial<FastifyError>;
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (
    fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    fe.name === 'SyntaxError'
  ) {
    return {
      status: 400,
      body: new ApiError('ERR_VALIDATION', Messages.invalidJson, { body: Messages.invalidJson }).toBody(),
    };
  }
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { status: 400, body: new ApiError('ERR_VALIDATION', Messages.fileTooLarge).toBody() };
  }
  if (status === 429) return { status, body: new ApiError('ERR_RATE_LIMITED').toBody() };
  if (status === 404) return { status, body: new ApiError('ERR_NOT_FOUND').toBody() };
  if (status >= 400 && status < 500) {
    return { status: 400, body: new ApiError('ERR_VALIDATION', fe.message || undefined).toBody() };
  }
  request.log.error({ err: error }, 'unhandled error');
  return { status: 500, body: new ApiError('ERR_INTERNAL').toBody() };
}

/** `Retry-After` of a 503 ERR_UNAVAILABLE answer, seconds. */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

/** A route path pattern (`/restapi/users/:id`) as a RegExp matching concrete paths. */
function patternOf(url: string): RegExp {
  const body = url
    .replace(/\/+$/, '')
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}

/**
 * Root plugin: the error handler, the 404 handler (with 405 for a known path under a wrong method:
 * spec-notes §8) and a registry of route paths for that check. Registered first, so every context inherits it.
 * @param opts.fallback optional handler for unknown non-API GETs (the console: index.html or a 404)
 */
export const errorsPlugin = fp(
  async (app: FastifyInstance, opts: { fallback?: (req: FastifyRequest, reply: FastifyReply) => unknown }) => {
    const routes: Array<{ method: string; pattern: RegExp }> = [];
    app.addHook('onRoute', (route) => {
      // A catch-all (the console's static files) would make every path "known": a wrong method on it is a 404.
      if (route.url.endsWith('*')) return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const m of methods) routes.push({ method: m.toUpperCase(), pattern: patternOf(route.url) });
    });

    app.setErrorHandler((error, request, reply) => {
      const { status, body } = toErrorBody(error, request);
      // RFC 9110 §10.2.3: when to try again; a pool reconnects as soon as the database answers.
      if (status === 503) void reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_S));
      return reply.status(status).send(body);
    });

    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0] ?? '/';
      const known = routes.some((r) => r.pattern.test(path));
      if (known) {
        return reply.status(405).send(new ApiError('ERR_METHOD_NOT_ALLOWED').toBody());
      }
      if (opts.fallback && request.method === 'GET' && !path.startsWith('/restapi')) {
        return opts.fallback(request, reply);
      }
      return reply.status(404).send(new ApiError('ERR_NOT_FOUND').toBody());
    });
  },
  { name: 'cordon-errors' },
);
