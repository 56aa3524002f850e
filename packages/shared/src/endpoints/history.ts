import { Role } from '../roles.ts';
import { historyPageSchema, historyParamsSchema, historyQuerySchema } from '../schemas/history.ts';
import { defineEndpoint } from './define.ts';

/** The query-log search (spec-notes §7 "Cloud keys and history"; docs/api.md "History"). */
export const historyEndpoints = {
  search: defineEndpoint({
    method: 'GET',
    path: '/users/:id/history/:action/:date',
    params: historyParamsSchema,
    query: historyQuerySchema,
    response: historyPageSchema,
    status: 200,
    access: { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] },
    tag: 'history',
    summary: "A customer's logged queries of a day or range, searched, ordered and paged (spec-notes §7).",
  }),
} as const;
