import { z } from 'zod';
import { Constants } from '../constants.ts';
import { Messages } from '../messages.ts';

/** The methods a sub-request of `POST /batch` may use (spec-notes §7 Batch): those of the API itself. */
export const BATCH_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type BatchMethod = (typeof BATCH_METHODS)[number];

/** Message of a sub-request id outside 1–64 letters, digits, `_`, `-`, `.` or `:`. */
export const batchIdMessage = 'Batch ids are 1 to 64 letters, digits, underscores, hyphens, dots or colons.';
/** Message of a sub-request path that is not an absolute path under `/restapi`. */
export const batchPathMessage =
  'The path must start with / and be relative to /restapi (no query, fragment, dot segment or encoded reserved character).';
/** Message of a sub-request that names `/batch` itself. */
export const batchNestedMessage = 'A batch cannot contain another batch.';
/** Message of a batch with more than {@link Constants.batchMaxRequests} sub-requests. */
export const batchTooLargeMessage = `A batch holds at most ${Constants.batchMaxRequests} sub-requests.`;

/** A sub-request id: the key of the body's map, echoed as the key of the answer. */
const BATCH_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Characters RFC 3986 §2.3 calls unreserved: percent-encoding them changes nothing (§6.2.2.2). */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * The one form a sub-request's path is checked and routed in (docs/api.md "Batch"; issue 30: `/%62atch`
 * ran a batch inside a batch): relative to `/restapi`, `/` then printable ASCII without `?` (query values
 * go in `parameters`), `#` or backslash; percent-encoded unreserved characters decoded (RFC 3986
 * §6.2.2.2), any other percent-encoding refused (no API path needs one: ids, dates and words); then no
 * empty segment (`//`) but a trailing slash, and no `.` or `..` segment (RFC 3986 §5.2.4), so the path
 * can only name a route of the API itself and names it exactly as the router will.
 * @returns the normalised path, or null when the path is refused
 */
export function normalizeBatchPath(path: string): string | null {
  if (path.length > 2048 || !/^\/[\x21-\x7e]*$/.test(path) || /[?#\\]/.test(path)) return null;
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const c = path[i] as string;
    if (c !== '%') {
      out += c;
      continue;
    }
    const hex = path.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return null;
    const decoded = String.fromCharCode(Number.parseInt(hex, 16));
    if (!UNRESERVED.test(decoded)) return null;
    out += decoded;
    i += 2;
  }
  const segments = out.replace(/\/+$/, '').split('/').slice(1);
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return null;
  return out;
}

/**
 * True when the (normalised) `path` names `POST /batch` itself: trailing slashes ignored as the router
 * does, and case too, so no spelling the router might accept passes (docs/api.md "Batch").
 */
export function isBatchItself(path: string): boolean {
  return path.replace(/\/+$/, '').toLowerCase() === '/batch';
}

/** A query value of a GET or DELETE sub-request: a scalar or a list of scalars (repeated keys). */
const queryValue = z.union([z.string(), z.number(), z.boolean()]);

/**
 * One sub-request (spec-notes §7 Batch): `method`, `path` relative to `/restapi` (answered in the form
 * {@link normalizeBatchPath} gives, which is what runs), and `parameters` — the
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
      .transform((p, ctx) => {
        const normal = normalizeBatchPath(p);
        if (normal === null) {
          ctx.addIssue({ code: 'custom', message: batchPathMessage });
          return z.NEVER;
        }
        if (isBatchItself(normal)) {
          ctx.addIssue({ code: 'custom', message: batchNestedMessage });
          return z.NEVER;
        }
        return normal;
      }),
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
