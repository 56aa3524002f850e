import { z } from 'zod';
import { Messages, Texts } from '../messages.ts';
import { idSchema } from './common.ts';

/**
 * The webhook event types (issue 26; docs/api.md "Webhooks"). `ping` is only sent by
 * `POST /webhooks/{id}/test`, to every endpoint whatever it subscribes.
 */
export const WEBHOOK_EVENT_TYPES = [
  'security.hit',
  'device.enrolled',
  'admin.changed',
  'report.sent',
  'feed.failed',
  'licence.threshold',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number] | 'ping';

/** The payload format's version, `version` in every event body (docs/api.md "Webhooks"). */
export const WEBHOOK_PAYLOAD_VERSION = 1;

/** Field message for a webhook URL that is neither https nor http. */
export const webhookUrlMessage = Texts.httpsUrl;

/** True when `text` parses as an `https:` or `http:` URL with a host and no credentials. */
function isWebUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' && url.username === '';
  } catch {
    return false;
  }
}

/**
 * A webhook URL: `https:`, or `http:` which the server accepts only for a loopback host the operator
 * allows (`--outbound-allow`; docs/security.md "Webhooks"). At most 2000 characters, no user info.
 */
const webhookUrl = z
  .string({ error: webhookUrlMessage })
  .trim()
  .max(2000, { error: 'Must contain at most 2000 characters.' })
  .refine(isWebUrl, { error: webhookUrlMessage });

const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { error: 'Unknown event type.' }), { error: 'Choose at least one event.' })
  .min(1, { error: 'Choose at least one event.' })
  .transform((list) => [...new Set(list)]);

/**
 * Whose webhooks a list or a creation means: `user_id` a customer's, `msp_id` an MSP's; neither the
 * caller's own (an MSP admin's MSP, a customer admin's customer). Checked in SQL against the caller.
 */
export const webhookOwnerQuerySchema = z.object({ msp_id: idSchema.optional(), user_id: idSchema.optional() });
export type WebhookOwnerQuery = z.infer<typeof webhookOwnerQuerySchema>;

/** Body of `POST /webhooks`. */
export const webhookCreateSchema = z.object({
  url: webhookUrl,
  description: z.string().trim().max(200, { error: Messages.max200 }).default(''),
  events,
  enabled: z.boolean().default(true),
});
export type WebhookCreate = z.infer<typeof webhookCreateSchema>;

/** Body of `PATCH /webhooks/{id}`: any of the fields; `enabled: true` clears a disablement. */
export const webhookUpdateSchema = z
  .object({
    url: webhookUrl,
    description: z.string().trim().max(200, { error: Messages.max200 }),
    events,
    enabled: z.boolean(),
  })
  .partial()
  .refine((b) => Object.keys(b).length > 0, { error: 'Nothing to change.' });
export type WebhookUpdate = z.infer<typeof webhookUpdateSchema>;

/** Path params `{ id }` of one endpoint. */
export const webhookParamsSchema = z.object({ id: idSchema });
/** Path params `{ id, deliveryId }` of one delivery. */
export const webhookDeliveryParamsSchema = z.object({ id: idSchema, deliveryId: idSchema });

/** Query of `GET /webhooks/{id}/deliveries`: newest first, `limit` (default 50, at most 200) from `offset`. */
export const webhookDeliveriesQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

/** One webhook endpoint as the API shows it (never its secret). */
export const webhookSchema = z.object({
  id: z.number().int(),
  msp_id: z.number().int(),
  user_id: z.number().int().nullable(),
  url: z.string(),
  description: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  disabled_at: z.string().nullable(),
  disabled_reason: z.string().nullable(),
  consecutive_failures: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Webhook = z.infer<typeof webhookSchema>;

/** A created endpoint, or one whose secret was rotated: the secret shown this once (`whsec_<base64>`). */
export const webhookWithSecretSchema = webhookSchema.extend({ secret: z.string() });
export type WebhookWithSecret = z.infer<typeof webhookWithSecretSchema>;

/** One delivery of the delivery log. */
export const webhookDeliverySchema = z.object({
  id: z.number().int(),
  event_id: z.string(),
  type: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  delivered_at: z.string().nullable(),
  payload: z.string(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;
