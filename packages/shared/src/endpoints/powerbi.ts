import { z } from 'zod';
import { Messages } from '../messages.ts';
import { ALL_ROLES, Role } from '../roles.ts';
import { idSchema } from '../schemas/common.ts';
import { defineEndpoint } from './define.ts';

/** `GET /powerbi/config`: whether a Power BI embed is configured for this deployment (docs/api.md "Power BI"). */
export const powerBiConfigSchema = z.object({ configured: z.boolean(), embed_url: z.string().nullable() });
export type PowerBiConfig = z.infer<typeof powerBiConfigSchema>;

/** Body of `POST /oauth/powerbi` (spec-notes §7): the report id and the customer's `uuid_str`. */
export const powerBiTokenBodySchema = z.object({
  rid: z.string({ error: Messages.required }).min(1, { error: Messages.required }).max(200),
  uuid: z.string({ error: Messages.required }).min(1, { error: Messages.required }).max(200),
});

/** The embed of one report for one customer. */
export const powerBiEmbedSchema = z.object({ embed_url: z.string(), rid: z.string(), customer_id: idSchema });

/** Power BI (spec-notes §7 "UI and tools"): the config call, and the embed of a report for a customer. */
export const powerBiEndpoints = {
  config: defineEndpoint({
    method: 'GET',
    path: '/powerbi/config',
    response: powerBiConfigSchema,
    status: 200,
    access: { scope: 'any', roles: ALL_ROLES },
    tag: 'powerbi',
    summary: 'Whether a Power BI embed is configured (spec-notes §7); the console hides its link when not.',
  }),
  embed: defineEndpoint({
    method: 'POST',
    path: '/oauth/powerbi',
    body: powerBiTokenBodySchema,
    response: powerBiEmbedSchema,
    status: 200,
    access: { scope: 'any', roles: [Role.System, Role.Msp, Role.Customer] },
    tag: 'powerbi',
    summary:
      'The embed address of Power BI report {rid} for the customer {uuid} (spec-notes §7); 409 when not configured.',
  }),
} as const;
