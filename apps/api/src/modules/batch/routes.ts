import { type BatchResponse, type BatchSubRequest, Endpoints } from '@cordon/shared';
import type { FastifyInstance, FastifyRequest, InjectOptions } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';

/**
 * The query string of a GET or DELETE sub-request from its `parameters` (an object of scalars or
 * lists of scalars, already checked by `batchSubRequestSchema`): a list repeats its key, null and
 * undefined values are left out.
 */
export function batchQueryString(parameters: unknown): string {
  if (parameters === null || typeof parameters !== 'object') return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(parameters as Record<string, unknown>)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v !== undefined && v !== null) search.append(key, String(v));
    }
  }
  const qs = search.toString();
  return qs ? `?${qs}` : '';
}

/**
 * The request one sub-request becomes (docs/api.md "Batch"): the same router under `/restapi`, the
 * caller's own `Authorization` header (so authentication, the role check, the tenancy guard and the
 * repositories' SQL scoping run exactly as for a request sent alone) and the caller's address (so
 * audit rows name the real client). `prefix` is the API's (`/restapi`). `parameters` are the query of a GET or DELETE, else the JSON body.
 */
export function subRequestOf(prefix: string, request: FastifyRequest, item: BatchSubRequest): InjectOptions {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.headers.authorization) headers['authorization'] = request.headers.authorization;
  const bodyless = item.method === 'GET' || item.method === 'DELETE';
  if (!bodyless && item.parameters !== undefined) headers['content-type'] = 'application/json';
  return {
    method: item.method,
    url: `${prefix}${item.path}${bodyless ? batchQueryString(item.parameters) : ''}`,
    headers,
    remoteAddress: request.ip,
    ...(!bodyless && item.parameters !== undefined ? { payload: JSON.stringify(item.parameters) } : {}),
  };
}

/** A sub-answer's body: its JSON, its text when it is not JSON, null when empty. */
function bodyOf(payload: string): unknown {
  if (payload === '') return null;
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return payload;
  }
}

/**
 * `POST /batch` (spec §7 Batch; docs/api.md "Batch"). The body was validated whole before anything
 * runs (at most 100 sub-requests, known methods, paths under `/restapi`, no nested `/batch`), so a
 * bad batch changes nothing. The sub-requests then run one after the other, in the order of the
 * body's keys, each through `app.inject`; a failing one does not stop the others. Each answers
 * `{ status, body }` under its id; the batch itself answers 200.
 */
export function registerBatchRoutes(app: FastifyInstance): void {
  const prefix = app.prefix;
  registerEndpoint(app, Endpoints.batch.run, async ({ request, body }) => {
    const answers = new Map<string, BatchResponse[string]>();
    for (const [id, item] of Object.entries(body)) {
      const res = await request.server.inject(subRequestOf(prefix, request, item));
      answers.set(id, { status: res.statusCode, body: bodyOf(res.payload) });
    }
    return Object.fromEntries(answers);
  });
}
