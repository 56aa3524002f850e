import { z } from 'zod';
import { idSchema, listQuerySchema } from './common.ts';

/**
 * One audit row (docs/architecture.md "One mutation path"; docs/security.md "Accounts"): who (admin
 * id and e-mail, role), the tenant, the action (`<entity>.<verb>`, e.g. `policy.update`,
 * `auth.login`), the entity and its id, the state before and after as JSON (secrets never in it),
 * the time (ISO-8601 UTC) and the client address.
 */
export const auditEntrySchema = z.object({
  id: z.number().int(),
  at: z.string(),
  admin_id: z.number().int().nullable(),
  admin_email: z.string().nullable(),
  role: z.number().int().nullable(),
  msp_id: z.number().int().nullable(),
  user_id: z.number().int().nullable(),
  action: z.string(),
  entity: z.string(),
  entity_id: z.number().int().nullable(),
  before: z.string().nullable(),
  after: z.string().nullable(),
  client_ip: z.string().nullable(),
  /** The API token the change was made with (docs/api.md "API tokens"); null or absent for a login session. */
  api_token_id: z.number().int().nullable().optional(),
  api_token_name: z.string().nullable().optional(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

const instant = z
  .string()
  .trim()
  .refine((v) => /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)), {
    error: 'Must be a date (YYYY-MM-DD) or a date and time (ISO 8601).',
  })
  .transform((v) => new Date(v).toISOString());

/**
 * Query of `GET /audit` and `/audit/export`: the list query (default sort `at` descending is the
 * console's; `sortkey` `at`, `action`, `admin_email`, `id`), `filter` over action, entity, e-mail
 * and client address, and optionally one MSP (`msp_id`), one customer (`user_id`), an action
 * prefix (`action=auth.` for every login event) and a time window (`from` inclusive, `to` exclusive).
 */
export const auditQuerySchema = listQuerySchema.extend({
  sortkey: z.string().trim().min(1).max(64).default('at'),
  sortdir: z.enum(['asc', 'desc']).default('desc'),
  msp_id: idSchema.optional(),
  user_id: idSchema.optional(),
  action: z.string().trim().max(64).optional(),
  from: instant.optional(),
  to: instant.optional(),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;
