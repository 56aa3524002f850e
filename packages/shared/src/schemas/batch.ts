import { z } from 'zod';
import { Constants } from '../constants.ts';
import { Messages } from '../messages.ts';

/** The methods a sub-request of `POST /batch` may use (spec §7 Batch): those of the API itself. */
export const BATCH_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type BatchMethod = (typeof BATCH_METHODS)[number];

/** Message of a sub-request id outside 1–64 letters, digits, `_`, `-`, `.` or `:`. */
export const batchIdMessage = 'Batch ids are 1 to 64 letters, digits, underscores, hyphens, dots or colons.';
/** Message of a sub-request path that is not an absolute path under `/restapi`. */
export const batchPathMessage =
  'The path must start with / and be relative to /restapi (no query, fragment or dot segment).';
/** Message of a sub-request that names `/batch` itself. */
export const batchNestedMessage = 'A batch cannot contain another batch.';
/** Message of a batch with more than {@link Constants.batchMaxRequests} sub-requests. */
export const batchTooLargeMessage = `A batch holds at most ${Constants.batchMaxRequests} sub-requests.`;

/** A sub-request id: the key of the body's map, echoed as the key of the answer. */
const BATCH_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * A sub-request's path, relative to `/restapi` (docs/api.md "Batch"): `/` then printable ASCII, no
 * `?` (query values go in `parameters`), no `#`, no backslash, no `//` and no `.`/`..` segment, so it
 * can only name a route of the API itself.
 */
function isBatchPath(path: string): boolean {
  if (!/^\/[\x21-\x7e]*$/.test(path) || /[?#\\]/.test(path) || path.includes('//')) return false;
  return !path.split('/').some((s) => s === '.' || s === '..' || /^%2e{1,2}$/i.test(s) || /%2e%2e|%2f|%5c/i.test(s));
}

/** True when `path` names `POST /batch` itself (trailing slashes ignored, as the router does). */
export function isBatchItself(path: string): boolean {
  return path.replace(/\/+$/, '') === '/batch';
}

/** A query value of a GET or DELETE sub-request: a scalar or a list of scalars (repeated keys). */
const queryValue = z.union([z.string(), z.number(), z.boolean()]);

/**
 * One sub-request (spec §7 Batch): `method`, `path` relative to `/restapi`, and `parameters` — the
 * query of a GET or DELETE (an object of scalars or lists of scalars), the JSON body of a POST, PUT
 * or PATCH (any JSON value). The method is case-insensitive and answered upper-case.
 */
export const batchSubRequestSchema = z
  .object({
    method: z
      .string({ error: Messages.required })
      .transform((m) => m.toUpperCase())
      .pipe(z.enum(BATCH_METHODS, { error: `method must be one of: ${BATCH_METHODS.join(', ')}.` })),
    path: z
      .string({ error: Messages.required })
      .max(2048, { error: batchPathMessage })
      .refine(isBatchPath, { error: batchPathMessage })
      .refine((p) => !isBatchItself(p), { error: batchNestedMessage }),
    parameters: z.unknown().optional(),
  })
  .superRefine((item, ctx) => {
    if ((item.method !== 'GET' && item.method !== 'DELETE') || item.parameters === undefined) return;
    const p = item.parameters;
    const ok =
      p === null ||
      (typeof p === 'object' &&
        !Array.isArray(p) &&
        Object.values(p as Record<string, unknown>).every(
          (v) =>
            queryValue.safeParse(v).success || (Array.isArray(v) && v.every((x) => queryValue.safeParse(x).success)),
        ));
    if (!ok) {
      ctx.addIssue({
        code: 'custom',
        path: ['parameters'],
        message: 'The parameters of a GET or DELETE are its query: an object of strings, numbers or booleans.',
      });
    }
  });
export type BatchSubRequest = z.output<typeof batchSubRequestSchema>;
export type BatchSubRequestInput = z.input<typeof batchSubRequestSchema>;

/**
 * Body of `POST /batch`: a map of id → sub-request, at most {@link Constants.batchMaxRequests}
 * entries (docs/api.md "Batch"). An empty map is answered with an empty map.
 */
export const batchRequestSchema = z
  .record(z.string().regex(BATCH_ID, { error: batchIdMessage }), batchSubRequestSchema)
  .refine((m) => Object.keys(m).length <= Constants.batchMaxRequests, { error: batchTooLargeMessage });
export type BatchRequest = z.output<typeof batchRequestSchema>;

/** The answer of one sub-request: its HTTP status and its JSON body (null when it had none). */
export const batchResultSchema = z.object({ status: z.number().int(), body: z.unknown() });
export type BatchResult = z.output<typeof batchResultSchema>;

/** Answer of `POST /batch`: the same ids, each with its sub-request's status and body. */
export const batchResponseSchema = z.record(z.string(), batchResultSchema);
export type BatchResponse = z.output<typeof batchResponseSchema>;
