import { z } from 'zod';
import { Role } from '../roles.ts';
import { auditEntrySchema, auditQuerySchema } from '../schemas/audit.ts';
import { listOf } from '../schemas/common.ts';
import { defineEndpoint } from './define.ts';

const tag = 'audit';
/** Rows are scoped in SQL: a system admin reads everything, an MSP admin its MSP's and its customers'. */
const access = { scope: 'owned', roles: [Role.System, Role.Msp] } as const;

/** The audit log (docs/security.md "Accounts"; docs/api.md "Audit log"): read only. */
export const auditEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/audit',
    query: auditQuerySchema,
    response: listOf(auditEntrySchema),
    status: 200,
    access,
    tag,
    summary: 'Audit rows the caller may read, newest first, with paging and search (docs/api.md "Audit log").',
  }),
  export: defineEndpoint({
    method: 'GET',
    path: '/audit/export',
    query: auditQuerySchema.omit({ limit: true, offset: true }),
    response: z.string(),
    status: 200,
    access,
    tag,
    summary: 'The same rows as CSV (at most 100 000), named with DD-MM-YYYY (spec-notes §9).',
  }),
} as const;
