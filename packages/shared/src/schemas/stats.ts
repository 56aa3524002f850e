import { z } from 'zod';
import { STATS_DATE_PATTERN } from '../stats.ts';
import { idSchema } from './common.ts';

export const statsDateSchema = z.string().regex(STATS_DATE_PATTERN, {
  error: 'date must be today, yesterday, 7days, 30days or YYYY-MM-DD.',
});

/** Path params of `/users/{id}/stats/{date}`. */
export const customerStatsParamsSchema = z.object({ id: idSchema, date: statsDateSchema });

/** Stats overview (spec §3 "Stats"): requests, unique_domains, allowed, blocked. */
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
