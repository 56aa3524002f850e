import { z } from 'zod';
import { categoryById, UNCLASSIFIED_CATEGORY_ID } from '../categories.ts';
import { Messages } from '../messages.ts';
import { idSchema } from './common.ts';
import { NOTIFICATION_PERIODS } from './mail.ts';

/**
 * How often a policy's category digest is mailed (spec-notes §3 "Notification settings: interval"):
 * the notification periods of the mail settings, `hourly`, `daily` or `weekly`.
 */
export const NOTIFICATION_INTERVALS = NOTIFICATION_PERIODS;
export type NotificationInterval = (typeof NOTIFICATION_INTERVALS)[number];

/**
 * The window of blocked hits a digest counts, ending when it is sent (spec-notes §3 "Notification
 * settings: period"): the last `hour`, `day` or `week`.
 */
export const NOTIFICATION_WINDOWS = ['hour', 'day', 'week'] as const;
export type NotificationWindow = (typeof NOTIFICATION_WINDOWS)[number];

/** Milliseconds of each interval and window. */
export const NOTIFICATION_MS: Readonly<Record<NotificationInterval | NotificationWindow, number>> = {
  hourly: 3_600_000,
  daily: 86_400_000,
  weekly: 604_800_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
};

/** The most recipients of one policy's notifications. */
export const NOTIFICATION_MAX_EMAILS = 20;

const categoryIdSchema = z
  .number({ error: 'Must be a category id.' })
  .int({ error: 'Must be a category id.' })
  .refine((id) => id !== UNCLASSIFIED_CATEGORY_ID && categoryById(id) !== undefined, {
    error: 'Must be a category id.',
  });

const recipientSchema = z
  .string({ error: Messages.invalidEmail })
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: Messages.invalidEmail }));

/**
 * Body of `POST /policies/{id}/notifications` and `POST /policies/default/notifications` (console
 * spec-notes §3 "Notification settings"): the categories to notify about (none: notifications off), the
 * interval, the window and the recipients. Categories without a recipient are refused on `emails`
 * with the spec-notes §5 text "The email address is required with the selected category notifications.";
 * duplicates are dropped.
 */
export const policyNotificationsUpdateSchema = z
  .object({
    categories: z
      .array(categoryIdSchema, { error: 'Must be a list of category ids.' })
      .max(100, { error: 'Must be a list of category ids.' })
      .default([])
      .transform((ids) => [...new Set(ids)].sort((a, b) => a - b)),
    interval: z.enum(NOTIFICATION_INTERVALS, { error: 'Please select a notification period.' }),
    period: z.enum(NOTIFICATION_WINDOWS, { error: 'Please select an option.' }),
    emails: z
      .array(recipientSchema, { error: Messages.invalidEmail })
      .max(NOTIFICATION_MAX_EMAILS, { error: `At most ${NOTIFICATION_MAX_EMAILS} recipients.` })
      .default([])
      .transform((list) => [...new Set(list)]),
  })
  .refine((b) => b.categories.length === 0 || b.emails.length > 0, {
    error: Messages.notificationEmailRequired,
    path: ['emails'],
  });
export type PolicyNotificationsUpdate = z.infer<typeof policyNotificationsUpdateSchema>;
export type PolicyNotificationsInput = z.input<typeof policyNotificationsUpdateSchema>;

/** Query of `/policies/default/notifications`: whose default policy (`user_id`; a customer admin's own when left out). */
export const defaultNotificationsQuerySchema = z.object({ user_id: idSchema.optional() });
export type DefaultNotificationsQuery = z.infer<typeof defaultNotificationsQuerySchema>;

/** The outcomes of a digest run: mailed, nothing to mail, or not mailed (with `last_reason`). */
export const NOTIFICATION_STATUSES = ['sent', 'no hits', 'not sent'] as const;

/**
 * A policy's notification settings as answered. A policy never saved answers no categories, no
 * recipients, `daily` and `day`. `last_run_at` (ISO) is the last digest run, `last_sent_at` the
 * last mail, `last_status`/`last_reason` the last run's outcome.
 */
export const policyNotificationsSchema = z.object({
  policy_id: z.number().int(),
  user_id: z.number().int(),
  categories: z.array(z.number().int()),
  interval: z.enum(NOTIFICATION_INTERVALS),
  period: z.enum(NOTIFICATION_WINDOWS),
  emails: z.array(z.string()),
  last_run_at: z.string().nullable(),
  last_sent_at: z.string().nullable(),
  last_status: z.string().nullable(),
  last_reason: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type PolicyNotifications = z.infer<typeof policyNotificationsSchema>;
