import { z } from 'zod';
import { STATS_DATE_PATTERN } from '../stats.ts';
import { idSchema } from './common.ts';

export const statsDateSchema = z.string().regex(STATS_DATE_PATTERN, {
  error: 'date must be today, yesterday, 7days, 30days or YYYY-MM-DD.',
});

/** Path params of `/users/{id}/stats/{date}`. */
export const customerStatsParamsSchema = z.object({ id: idSchema, date: statsDateSchema });

/** Stats overview (spec-notes §3 "Stats"): requests, unique_domains, allowed, blocked. */
export const statsOverviewSchema = z.object({
  requests: z.number().int(),
  unique_domains: z.number().int(),
  allowed: z.number().int(),
  blocked: z.number().int(),
});
export type StatsOverview = z.infer<typeof statsOverviewSchema>;

/** Traffic over a day in hourly buckets (`/users/{id}/stats/traffic/{day}`); `time` is the bucket start (ISO). */
export const statsTrafficSchema = z.object({
  data: z.array(z.object({ time: z.string(), allowed: z.number().int(), blocked: z.number().int() })),
});
export type StatsTraffic = z.infer<typeof statsTrafficSchema>;

/** Path params of `/users/{id}/stats/traffic/{day}`. */
export const customerTrafficParamsSchema = z.object({ id: idSchema, day: statsDateSchema });

/** The top-list dimensions of spec-notes §7 Stats: `/stats/{categories|domains|users}/{allowed|blocked}/{date}`. */
export const STATS_DIMENSIONS = ['categories', 'domains', 'users'] as const;
export type StatsDimension = (typeof STATS_DIMENSIONS)[number];
/** The two actions of the top lists (an allowed list counts bypassed answers too: docs/api.md "Stats"). */
export const STATS_ACTIONS = ['allowed', 'blocked'] as const;
export type StatsAction = (typeof STATS_ACTIONS)[number];

const dimensionSchema = z.enum(STATS_DIMENSIONS, { error: 'Must be categories, domains or users.' });
const actionSchema = z.enum(STATS_ACTIONS, { error: 'Must be allowed or blocked.' });

/** Query of the top lists: `limit` 1–100, default 10 (spec-notes §9 default page size). */
export const statsTopQuerySchema = z.object({
  limit: z.coerce
    .number({ error: 'limit must be a whole number from 1 to 100.' })
    .int({ error: 'limit must be a whole number from 1 to 100.' })
    .min(1, { error: 'limit must be a whole number from 1 to 100.' })
    .max(100, { error: 'limit must be a whole number from 1 to 100.' })
    .optional(),
});

/** Path params of `/users/{id}/stats/{dim}/{action}/{date}`. */
export const customerTopParamsSchema = z.object({
  id: idSchema,
  dim: dimensionSchema,
  action: actionSchema,
  date: statsDateSchema,
});
/** Path params of `/msp/{id}/stats/{dim}/{action}/{date}`. */
export const mspTopParamsSchema = customerTopParamsSchema;
/** Path params of `/stats/{dim}/{action}/{date}` (system). */
export const systemTopParamsSchema = z.object({ dim: dimensionSchema, action: actionSchema, date: statsDateSchema });

/**
 * A top list: the keys with the most queries of one action, most first (ties by key). `key` is the
 * category id, the qname or the client address; `name` what a person reads (the category's name,
 * else the key).
 */
export const statsTopSchema = z.object({
  data: z.array(z.object({ key: z.string(), name: z.string(), count: z.number().int() })),
});
export type StatsTop = z.infer<typeof statsTopSchema>;

/** `{days}` of the history calls: 1–31 days ending today (spec-notes §9: the dashboard shows 5). */
export const statsDaysSchema = z.coerce
  .number({ error: 'days must be a whole number from 1 to 31.' })
  .int({ error: 'days must be a whole number from 1 to 31.' })
  .min(1, { error: 'days must be a whole number from 1 to 31.' })
  .max(31, { error: 'days must be a whole number from 1 to 31.' });

/** Path params of `/users/{id}/stats/history/{days}` and `/msp/{id}/stats/history/{days}`. */
export const customerHistoryParamsSchema = z.object({ id: idSchema, days: statsDaysSchema });
/** Path params of `/stats/history/{days}`. */
export const systemHistoryParamsSchema = z.object({ days: statsDaysSchema });

/** Requests per local day, oldest first, today last; `date` is `YYYY-MM-DD` in the tenant's time zone. */
export const statsHistorySchema = z.object({
  data: z.array(
    z.object({
      date: z.string(),
      requests: z.number().int(),
      allowed: z.number().int(),
      blocked: z.number().int(),
    }),
  ),
});
export type StatsHistory = z.infer<typeof statsHistorySchema>;

/** Path params of `/msp/{id}/stats/{date}`. */
export const mspStatsParamsSchema = customerStatsParamsSchema;
/** Path params of `/msp/{id}/stats/traffic/{day}`. */
export const mspTrafficParamsSchema = customerTrafficParamsSchema;
/** Path params of `/stats/{date}` (system). */
export const systemStatsParamsSchema = z.object({ date: statsDateSchema });
/** Path params of `/stats/traffic/{day}` (system). */
export const systemTrafficParamsSchema = z.object({ day: statsDateSchema });

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const dayMessage = (f: string) => `${f} must be a date YYYY-MM-DD.`;

/**
 * Query of the location stats (spec-notes §7 "Location stats … with start and end"): local days
 * `YYYY-MM-DD`, both included; default today; at most 400 days.
 */
export const locationStatsQuerySchema = z.object({
  start: z
    .string()
    .regex(DAY_PATTERN, { error: dayMessage('start') })
    .optional(),
  end: z
    .string()
    .regex(DAY_PATTERN, { error: dayMessage('end') })
    .optional(),
  limit: statsTopQuerySchema.shape.limit,
});
/** Path params of `/users/{id}/locations/{locId}/stats`. */
export const locationStatsParamsSchema = z.object({ id: idSchema, locId: idSchema });
/** Path params of `/users/{id}/locations/{locId}/stats/{categories|domains}/{action}`. */
export const locationTopParamsSchema = z.object({
  id: idSchema,
  locId: idSchema,
  dim: z.enum(['categories', 'domains'], { error: 'Must be categories or domains.' }),
  action: actionSchema,
});

/** The sort keys of the MSP overview's customer list (`GET /msp/{id}/stats/customers`). */
export const CUSTOMER_STATUS_SORT_KEYS = [
  'name',
  'requests_today',
  'blocked_today',
  'requests_last_hour',
  'last_seen',
  'locations_silent',
  'devices_silent',
  'devices',
  'level',
] as const;
export type CustomerStatusSortKey = (typeof CUSTOMER_STATUS_SORT_KEYS)[number];

/**
 * Query of `GET /msp/{id}/stats/customers` (docs/api.md "Stats"): a page of the MSP's customers,
 * `filter` on the account name, sorted by one of {@link CUSTOMER_STATUS_SORT_KEYS} (default name).
 */
export const customerStatusQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).default(0),
  sortkey: z
    .enum(CUSTOMER_STATUS_SORT_KEYS, { error: `sortkey must be one of: ${CUSTOMER_STATUS_SORT_KEYS.join(', ')}.` })
    .default('name'),
  sortdir: z.enum(['asc', 'desc']).default('asc'),
  filter: z.string().trim().max(200).optional(),
});
export type CustomerStatusQuery = z.infer<typeof customerStatusQuerySchema>;

/**
 * One customer's status on the MSP overview, from the roll-ups (docs/api.md "Stats"): requests in
 * the last hour (the current UTC hour and the one before), the last hour with traffic (ISO-8601
 * UTC hour start, null: never), locations without traffic and devices without contact in 24 h,
 * its devices (its licence use), today's requests and blocked in its own time zone (else its
 * MSP's), and its default policy's protection level (null: none).
 */
export const customerStatusSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  timezone: z.string(),
  default_policy_id: z.number().int().nullable(),
  level: z.string().nullable(),
  requests_today: z.number().int(),
  blocked_today: z.number().int(),
  requests_last_hour: z.number().int(),
  last_seen: z.string().nullable(),
  locations: z.number().int(),
  locations_silent: z.number().int(),
  devices: z.number().int(),
  devices_silent: z.number().int(),
});
export type CustomerStatus = z.infer<typeof customerStatusSchema>;

/**
 * The MSP overview's customer list: a page of {@link customerStatusSchema}, `total` matching the
 * filter, and the MSP's licence use (customers against a whole-number licence; `limit` null: none).
 */
export const customerStatusListSchema = z.object({
  data: z.array(customerStatusSchema),
  total: z.number().int(),
  licence: z.object({ used: z.number().int(), limit: z.number().int().nullable() }),
  as_of: z.string(),
});
export type CustomerStatusList = z.infer<typeof customerStatusListSchema>;

/** The sort keys of a stats breakdown (`GET /msp/{id}/stats/breakdown`, `GET /stats/breakdown`). */
export const STATS_BREAKDOWN_SORT_KEYS = ['count', 'name'] as const;
export type StatsBreakdownSortKey = (typeof STATS_BREAKDOWN_SORT_KEYS)[number];

/**
 * Query of a stats breakdown (issue 29 drill-down; docs/api.md "Stats"): exactly one of `domain` (the
 * qname, as the history's filter) or `category` (an id), the history's `action` (`all`, `allowed`:
 * bypassed included, `blocked`; default all) and a stats `date` (default today); a page (`limit`
 * 1–500, default 25) sorted by `count` (default, most first) or `name`.
 */
export const statsBreakdownQuerySchema = z.object({
  // As the history's exact filters (schemas/history.ts), so a breakdown row links to the same rows.
  domain: z
    .string()
    .trim()
    .toLowerCase()
    .min(1, { error: 'domain must not be empty.' })
    .max(253, { error: 'domain must be at most 253 characters.' })
    .optional(),
  category: idSchema.optional(),
  action: z.enum(['all', 'allowed', 'blocked'], { error: 'action must be all, allowed or blocked.' }).default('all'),
  date: statsDateSchema.default('today'),
  limit: z.coerce
    .number({ error: 'limit must be a whole number from 1 to 500.' })
    .int({ error: 'limit must be a whole number from 1 to 500.' })
    .min(1, { error: 'limit must be a whole number from 1 to 500.' })
    .max(500, { error: 'limit must be a whole number from 1 to 500.' })
    .default(25),
  offset: z.coerce
    .number({ error: 'offset must be a whole number of at least 0.' })
    .int({ error: 'offset must be a whole number of at least 0.' })
    .min(0, { error: 'offset must be a whole number of at least 0.' })
    .default(0),
  sortkey: z
    .enum(STATS_BREAKDOWN_SORT_KEYS, { error: `sortkey must be one of: ${STATS_BREAKDOWN_SORT_KEYS.join(', ')}.` })
    .default('count'),
  sortdir: z.enum(['asc', 'desc'], { error: 'sortdir must be asc or desc.' }).default('desc'),
});
export type StatsBreakdownQuery = z.infer<typeof statsBreakdownQuerySchema>;

/**
 * A stats breakdown: who made the queries of one domain or category over a period, from the roll-ups
 * (docs/api.md "Stats"). `data` is a page of customers (an MSP's breakdown) or MSPs (the system's),
 * each `{ id, name, count }` with count ≥ 1; `total` how many there are, `count` their queries in all.
 */
export const statsBreakdownSchema = z.object({
  data: z.array(z.object({ id: z.number().int(), name: z.string(), count: z.number().int() })),
  total: z.number().int(),
  count: z.number().int(),
});
export type StatsBreakdown = z.infer<typeof statsBreakdownSchema>;
