import { z } from 'zod';
import { Messages } from '../messages.ts';
import { isDomainName, isIpAddress } from '../net.ts';
import { controlCharactersMessage, emailSchema, idSchema } from './common.ts';

const CONTROL = /\p{Cc}/u;

/** Notification periods of the mail settings (spec-notes §3 "Email settings"; the "select a notification period" prompt, spec-notes §5). */
export const NOTIFICATION_PERIODS = ['hourly', 'daily', 'weekly'] as const;
export type NotificationPeriod = (typeof NOTIFICATION_PERIODS)[number];

/** How the SMTP connection is protected: none, STARTTLS (RFC 3207) or TLS from the first byte (RFC 8314 §3.3). */
export const MAIL_SECURITY = ['none', 'starttls', 'tls'] as const;
export type MailSecurity = (typeof MAIL_SECURITY)[number];

/** True for a host name (RFC 1123 labels, one label allowed: `localhost`) or an IPv4/IPv6 address. */
export function isHostOrIp(value: string): boolean {
  return isIpAddress(value) || isDomainName(value, { allowSingleLabel: true });
}

/** The mail server: a host name or an IP address (spec-notes §5 "Please specify valid hostname or IP address for Email server."). */
export const mailServerSchema = z
  .string({ error: Messages.invalidMailServer })
  .trim()
  .min(1, { error: Messages.invalidMailServer })
  .max(253, { error: Messages.invalidMailServer })
  .refine(isHostOrIp, { error: Messages.invalidMailServer })
  .transform((v) => v.toLowerCase());

/** `msp_id` of `/mail` (spec-notes §7 "UI and tools"): whose settings; absent = the caller's own (system or MSP). */
export const mailQuerySchema = z.object({ msp_id: idSchema.optional() });
export type MailQuery = z.infer<typeof mailQuerySchema>;

/** One line of text: trimmed, at most 200 characters, no control characters. */
const line = z
  .string()
  .trim()
  .max(200, { error: Messages.max200 })
  .refine((v) => !CONTROL.test(v), { error: controlCharactersMessage });

/** An http(s) URL with a host and no query or fragment, without its trailing slash ('' = not set). */
const consoleUrlSchema = z
  .string()
  .trim()
  .max(200, { error: Messages.max200 })
  .refine(
    (v) => {
      if (v === '') return true;
      try {
        const url = new URL(v);
        return (
          (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && !url.search && !url.hash
        );
      } catch {
        return false;
      }
    },
    { error: Messages.invalidUrl },
  )
  .transform((v) => v.replace(/\/+$/, ''));

/**
 * Body of `POST /mail` (spec-notes §7; spec-notes §3 "Email settings": server, sender, from email, notification
 * period). `password` left out keeps the stored one; '' clears it. `console_url` is the system's
 * only (refused at MSP level).
 */
export const mailSettingsUpdateSchema = z.object({
  server: mailServerSchema,
  port: z
    .number({ error: Messages.positiveInteger })
    .int({ error: Messages.positiveInteger })
    .min(1, { error: 'Must be a port between 1 and 65535.' })
    .max(65535, { error: 'Must be a port between 1 and 65535.' })
    .default(25),
  security: z.enum(MAIL_SECURITY, { error: 'Must be none, starttls or tls.' }).default('none'),
  username: line.default(''),
  password: z.string().max(200, { error: Messages.max200 }).optional(),
  sender: line.default(''),
  from_email: emailSchema,
  notification_period: z.enum(NOTIFICATION_PERIODS, { error: 'Please select a notification period.' }),
  console_url: consoleUrlSchema.optional(),
});
export type MailSettingsUpdate = z.infer<typeof mailSettingsUpdateSchema>;

/**
 * Mail settings as answered (spec-notes §3 "Email settings"). `is_set` false: the owner has no row of its
 * own (an MSP then sends through the system's; the fields are the system's as `inherited` says).
 * The password is never answered, only whether one is stored.
 */
export const mailSettingsSchema = z.object({
  scope: z.enum(['system', 'msp']),
  msp_id: z.number().int().nullable(),
  is_set: z.boolean(),
  inherited: z.boolean(),
  server: z.string(),
  port: z.number().int(),
  security: z.enum(MAIL_SECURITY),
  username: z.string(),
  has_password: z.boolean(),
  sender: z.string(),
  from_email: z.string(),
  notification_period: z.string(),
  console_url: z.string(),
  updated_at: z.string().nullable(),
});
export type MailSettings = z.infer<typeof mailSettingsSchema>;

/** Body of `POST /mail/test`: where the test e-mail goes. */
export const mailTestSchema = z.object({ to: emailSchema });
export type MailTest = z.infer<typeof mailTestSchema>;

/** Answer of `POST /mail/test`: the SMTP server accepted the message (its id). */
export const mailTestResponseSchema = z.object({ sent: z.literal(true), message_id: z.string() });
