import {
  ApiError,
  type BatchResponse,
  type BatchSubRequest,
  batchNestedMessage,
  Constants,
  Endpoints,
} from '@cordon/shared';
import type { FastifyInstance, FastifyRequest, InjectOptions } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import { BATCH_RATE, createBatchBudget } from '../../lib/batch-budget.ts';
import type { AppDeps } from '../../types.ts';

/**
 * The header every sub-request carries: `/batch` refuses a request with it, so no spelling of the path
 * can run a batch inside a batch even if one got past the path check (defence in depth; issue 30).
 */
export const BATCH_ITEM_HEADER = 'x-cordon-batch-item';

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
  const headers: Record<string, string> = { accept: 'application/json', [BATCH_ITEM_HEADER]: '1' };
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

/** The answer of an item that does not fit in the batch's answer, or comes after one that did not. */
function tooLarge(): BatchResponse[string] {
  return { status: 413, body: new ApiError('ERR_BATCH_TOO_LARGE').toBody() };
}

/**
 * `POST /batch` (spec-notes §7 Batch; docs/api.md "Batch"). The body was validated whole before anything
 * runs (at most 100 sub-requests, known methods, paths normalised and under `/restapi`, no nested
 * `/batch`), so a bad batch changes nothing. Every item then counts against the caller's sub-request
 * budget (`budget.ts`): a batch the budget cannot cover answers 429 `ERR_RATE_LIMITED` with
 * `Retry-After` and runs nothing. The sub-requests run one after the other, in the order of the
 * body's keys, each through `app.inject`; a failing one does not stop the others. Each answers
 * `{ status, body }` under its id; the batch itself answers 200. The items' bodies may total
 * `Constants.batchMaxResponseBytes`: the item that would pass it (it ran) and every item after it
 * (they do not run) answer 413 `ERR_BATCH_TOO_LARGE`.
 */
export function registerBatchRoutes(app: FastifyInstance, deps: AppDeps): void {
  const prefix = app.prefix;
  const budget = createBatchBudget(deps.batchRate ?? BATCH_RATE, deps.now);
  registerEndpoint(app, Endpoints.batch.run, async ({ request, reply, body }) => {
    if (request.headers[BATCH_ITEM_HEADER] !== undefined) {
      throw new ApiError('ERR_VALIDATION', batchNestedMessage);
    }
    const items = Object.entries(body);
    const waitMs = budget.take(request.principal.adminId, items.length);
    if (waitMs > 0) {
      reply.header('retry-after', String(Math.ceil(waitMs / 1000)));
      throw new ApiError('ERR_RATE_LIMITED');
    }
    const answers = new Map<string, BatchResponse[string]>();
    let bytes = 0;
    let full = false;
    for (const [id, item] of items) {
      if (full) {
        answers.set(id, tooLarge());
        continue;
      }
      const res = await request.server.inject(subRequestOf(prefix, request, item));
      bytes += Buffer.byteLength(res.payload);
      if (bytes > Constants.batchMaxResponseBytes) {
        full = true;
        answers.set(id, tooLarge());
        continue;
      }
      answers.set(id, { status: res.statusCode, body: bodyOf(res.payload) });
    }
    return Object.fromEntries(answers);
  });
}
