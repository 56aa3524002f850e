import { Role } from '../roles.ts';
import {
  customerStatsParamsSchema,
  customerTrafficParamsSchema,
  statsOverviewSchema,
  statsTrafficSchema,
} from '../schemas/stats.ts';
import { defineEndpoint } from './define.ts';

const tag = 'stats';
const access = { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] } as const;

/** Customer statistics (spec §7 "Stats", the `/users/{id}/stats` family). */
export const statsEndpoints = {
  /** Registered before `overview`: the static `traffic` segment wins over `:date`. */
  customerTraffic: defineEndpoint({
    method: 'GET',
    path: '/users/:id/stats/traffic/:day',
    params: customerTrafficParamsSchema,
    response: statsTrafficSchema,
    status: 200,
    access,
    tag,
    summary: "A customer's allowed and blocked requests per hour of a day (spec §7 Stats).",
  }),
  customerOverview: defineEndpoint({
    method: 'GET',
    path: '/users/:id/stats/:date',
    params: customerStatsParamsSchema,
    response: statsOverviewSchema,
    status: 200,
    access,
    tag,
    summary: "A customer's requests, unique domains, allowed and blocked (spec §7 Stats).",
  }),
} as const;
