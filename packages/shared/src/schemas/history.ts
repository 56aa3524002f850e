import { z } from 'zod';
import { idSchema } from './common.ts';
import { statsDateSchema } from './stats.ts';

/** The history default and largest page (spec-notes §9: "History default limit is 1000"). */
export const HISTORY_LIMIT = 1000;

/** The columns the history may be ordered by (docs/api.md "History"). */
export const HISTORY_ORDER_BY = ['time', 'qname', 'qtype', 'client_ip', 'action', 'reason'] as const;

/** Path params of `/users/{id}/history/{action}/{date}`: `action` is `all`, `allowed` or `blocked`. */
export const historyParamsSchema = z.object({
  id: idSchema,
  action: z.enum(['all', 'allowed', 'blocked'], { error: 'action must be all, allowed or blocked.' }),
  date: statsDateSchema,
});

const whole = (field: string, min: number, max: number) =>
  z.coerce
    .number({ error: `${field} must be a whole number from ${min} to ${max}.` })
    .int({ error: `${field} must be a whole number from ${min} to ${max}.` })
    .min(min, { error: `${field} must be a whole number from ${min} to ${max}.` })
    .max(max, { error: `${field} must be a whole number from ${min} to ${max}.` });

/**
 * Query of the history (spec-notes §7 "Cloud keys and history"): `limit` (default and at most 1000),
 * `offset`, `order_by` (default `time`), `order_dir` (default `desc`: newest first) and `q`, a
 * case-insensitive part of the qname, the client address, the user's or the device's name, or the
 * matched name of the answer's alias chain; and the exact filters `domain`, `category`, `location`,
 * `device`, `user` and `client_ip` (issue 29: a dashboard entry drills into the history).
 */
export const historyQuerySchema = z.object({
  limit: whole('limit', 1, HISTORY_LIMIT).optional(),
  offset: whole('offset', 0, 100_000_000).optional(),
  order_by: z.enum(HISTORY_ORDER_BY, { error: `order_by must be one of ${HISTORY_ORDER_BY.join(', ')}.` }).optional(),
  order_dir: z.enum(['asc', 'desc'], { error: 'order_dir must be asc or desc.' }).optional(),
  q: z.string().max(200, { error: 'q must be at most 200 characters.' }).optional(),
  // Exact filters, the dashboards' drill-down (issue 29): a top list's entry is one of these.
  /** The qname, exactly (lower case, no trailing dot). */
  domain: z
    .string()
    .trim()
    .toLowerCase()
    .min(1)
    .max(253, { error: 'domain must be at most 253 characters.' })
    .optional(),
  /** A category id: the queries of that category. */
  category: whole('category', 1, 2_147_483_647).optional(),
  /** A location id of the customer. */
  location: whole('location', 1, 2_147_483_647).optional(),
  /** A device id of the customer. */
  device: whole('device', 1, 2_147_483_647).optional(),
  /** The internal user's name as logged, exactly. */
  user: z.string().min(1).max(200, { error: 'user must be at most 200 characters.' }).optional(),
  /** The client address, exactly. */
  client_ip: z.string().min(1).max(64, { error: 'client_ip must be at most 64 characters.' }).optional(),
});
export type HistoryQuery = z.infer<typeof historyQuerySchema>;

/** One logged query as the history shows it; `time` is ISO-8601 UTC, `categories` the category names. */
export const historyEntrySchema = z.object({
  id: z.number().int(),
  time: z.string(),
  qname: z.string(),
  qtype: z.string(),
  action: z.string(),
  reason: z.string(),
  categories: z.array(z.object({ id: z.number().int(), name: z.string() })),
  client_ip: z.string(),
  location_id: z.number().int().nullable(),
  location: z.string().nullable(),
  policy_id: z.number().int().nullable(),
  rcode: z.string(),
  /** The transport the query came on: `udp`, `tcp`, `doh` (RFC 8484) or `dot` (RFC 7858). */
  protocol: z.string(),
  /** The device identified by its key, and its name now (null when deleted); null for a location. */
  device_id: z.number().int().nullable(),
  device: z.string().nullable(),
  /** The internal user the agent reported (its name as logged), or null. */
  user: z.string().nullable(),
  /** That user's effective group and its name now (null when deleted), or null. */
  group_id: z.number().int().nullable(),
  group: z.string().nullable(),
  /**
   * The name of the upstream answer's alias chain (CNAME/DNAME owner or target, HTTPS/SVCB target)
   * whose decision blocked the query, lower case without the trailing dot (issue 24, migration 0036);
   * null when the decision was made on the qname itself.
   */
  matched_name: z.string().nullable(),
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

/** A page of the history and the number of matching rows. */
export const historyPageSchema = z.object({ total: z.number().int(), data: z.array(historyEntrySchema) });
export type HistoryPage = z.infer<typeof historyPageSchema>;
