import { z } from 'zod';
import { Messages } from '../messages.ts';
import { idSchema } from './common.ts';

/**
 * The report catalogue (spec-notes §3 "Report types"): each `r_*` code is one type and one dimension.
 * behaviour counts every query, blocked the blocked ones, trend buckets them by hour or day, and
 * security counts the queries of the malware (categories 1 Compromised, 6 Spyware and Malicious
 * Sites) or phishing (5 Phishing/Fraud) categories (docs/api.md "Reports").
 */
export const REPORTS = [
  { code: 'r_behaviour_user', type: 'behaviour', dimension: 'user' },
  { code: 'r_behaviour_group', type: 'behaviour', dimension: 'group' },
  { code: 'r_behaviour_category', type: 'behaviour', dimension: 'category' },
  { code: 'r_behaviour_location', type: 'behaviour', dimension: 'location' },
  { code: 'r_behaviour_domain', type: 'behaviour', dimension: 'domain' },
  { code: 'r_behaviour_policy', type: 'behaviour', dimension: 'policy' },
  { code: 'r_behaviour_sourceip', type: 'behaviour', dimension: 'sourceip' },
  { code: 'r_blocked_user', type: 'blocked', dimension: 'user' },
  { code: 'r_blocked_group', type: 'blocked', dimension: 'group' },
  { code: 'r_blocked_url', type: 'blocked', dimension: 'url' },
  { code: 'r_blocked_category', type: 'blocked', dimension: 'category' },
  { code: 'r_blocked_location', type: 'blocked', dimension: 'location' },
  { code: 'r_blocked_domain', type: 'blocked', dimension: 'domain' },
  { code: 'r_blocked_policy', type: 'blocked', dimension: 'policy' },
  { code: 'r_blocked_sourceip', type: 'blocked', dimension: 'sourceip' },
  { code: 'r_trend_hour', type: 'trend', dimension: 'hour' },
  { code: 'r_trend_day', type: 'trend', dimension: 'day' },
  { code: 'r_security_malware_sourceip', type: 'security', dimension: 'malware_sourceip' },
  { code: 'r_security_malware_domain', type: 'security', dimension: 'malware_domain' },
  { code: 'r_security_malware_user', type: 'security', dimension: 'malware_user' },
  { code: 'r_security_phishing_sourceip', type: 'security', dimension: 'phishing_sourceip' },
  { code: 'r_security_phishing_domain', type: 'security', dimension: 'phishing_domain' },
  { code: 'r_security_phishing_user', type: 'security', dimension: 'phishing_user' },
] as const;

export type ReportCode = (typeof REPORTS)[number]['code'];
export type ReportType = (typeof REPORTS)[number]['type'];
export const REPORT_CODES = REPORTS.map((r) => r.code) as unknown as readonly [ReportCode, ...ReportCode[]];
export const REPORT_TYPES = ['behaviour', 'blocked', 'trend', 'security'] as const;

/** The catalogue entry of `code`, or undefined. */
export function reportByCode(code: string) {
  return REPORTS.find((r) => r.code === code);
}

/** Malware categories of the security reports: 1 Compromised, 6 Spyware and Malicious Sites. */
export const MALWARE_CATEGORY_IDS: readonly number[] = [1, 6];
/** Phishing categories of the security reports: 5 Phishing/Fraud. */
export const PHISHING_CATEGORY_IDS: readonly number[] = [5];

export const reportCodeSchema = z.enum(REPORT_CODES, { error: 'Please select a report type.' });

/** Path params of `/users/{id}/reports/{code}[/pdf]`. */
export const reportParamsSchema = z.object({ id: idSchema, code: reportCodeSchema });

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** Query of a report: local days `start`–`end` (both included; default the last 7 days) and `limit` rows (1–1000, default 100). */
export const reportQuerySchema = z.object({
  start: z.string().regex(DAY, { error: 'start must be a date YYYY-MM-DD.' }).optional(),
  end: z.string().regex(DAY, { error: 'end must be a date YYYY-MM-DD.' }).optional(),
  limit: z.coerce
    .number({ error: 'limit must be a whole number from 1 to 1000.' })
    .int({ error: 'limit must be a whole number from 1 to 1000.' })
    .min(1, { error: 'limit must be a whole number from 1 to 1000.' })
    .max(1000, { error: 'limit must be a whole number from 1 to 1000.' })
    .optional(),
});
export type ReportQuery = z.infer<typeof reportQuerySchema>;

/**
 * A report: its code, type and dimension, the local days it covers and the customer's time zone,
 * and its rows, most queries first (trend: in time order). `key` is what the row counts by (a
 * category id, qname, address, location or policy id, or an ISO hour / local day); `name` what a
 * person reads. `total` sums `requests` over every key, not only the rows shown.
 */
export const reportSchema = z.object({
  code: z.string(),
  type: z.string(),
  dimension: z.string(),
  start: z.string(),
  end: z.string(),
  timezone: z.string(),
  total: z.number().int(),
  rows: z.array(
    z.object({
      key: z.string(),
      name: z.string(),
      requests: z.number().int(),
      allowed: z.number().int(),
      blocked: z.number().int(),
    }),
  ),
});
export type Report = z.infer<typeof reportSchema>;

/** Report frequencies (spec-notes §9): daily, weekly (Monday), monthly (the 1st), in the customer's time zone. */
export const REPORT_FREQUENCIES = ['daily', 'weekly', 'monthly'] as const;
export type ReportFrequency = (typeof REPORT_FREQUENCIES)[number];

/** The statuses of a scheduled report's last run (spec-notes §4): `sent` or `report not sent` (with a reason). */
export const REPORT_STATUSES = ['sent', 'report not sent'] as const;

/** The most recipients of one scheduled report. */
export const REPORT_MAX_RECIPIENTS = 20;

const recipientSchema = z.email({ error: Messages.invalidEmail });

/** Body of `POST /users/{id}/scheduledreports` (spec-notes §3 "Scheduled report"). */
export const scheduledReportCreateSchema = z.object({
  name: z
    .string({ error: Messages.required })
    .trim()
    .min(1, { error: Messages.required })
    .max(200, { error: 'Must be at most 200 characters.' }),
  type: reportCodeSchema,
  frequency: z.enum(REPORT_FREQUENCIES, { error: 'Please select a frequency.' }),
  recipients: z
    .array(recipientSchema, { error: 'At least one recipient is required.' })
    .min(1, { error: 'At least one recipient is required.' })
    .max(REPORT_MAX_RECIPIENTS, { error: `At most ${REPORT_MAX_RECIPIENTS} recipients.` }),
  categories: z.array(z.number().int().min(0).max(1000)).max(100).optional(),
});
export type ScheduledReportCreate = z.infer<typeof scheduledReportCreateSchema>;

/** Body of `POST /users/{id}/scheduledreports/{rid}` (an update): any field of the create body. */
export const scheduledReportUpdateSchema = scheduledReportCreateSchema.partial();
export type ScheduledReportUpdate = z.infer<typeof scheduledReportUpdateSchema>;

/** A scheduled report on the wire; `sent_date` is the last send (ISO), `status`/`reason` its outcome. */
export const scheduledReportSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  type: z.string(),
  frequency: z.string(),
  recipients: z.array(z.string()),
  categories: z.array(z.number().int()),
  sent_date: z.string().nullable(),
  status: z.string().nullable(),
  reason: z.string().nullable(),
  created_at: z.string(),
});
export type ScheduledReport = z.infer<typeof scheduledReportSchema>;

/**
 * Answer of `POST /users/{id}/scheduledreports/{rid}/run`: the schedule with the outcome, and the
 * calendar days (`YYYY-MM-DD`, in the customer's time zone) the report sent covered — its last full
 * period: yesterday, last Monday–Sunday or last month. An extension of the specification's answer.
 */
export const scheduledRunSchema = scheduledReportSchema.extend({ period_start: z.string(), period_end: z.string() });
export type ScheduledRun = z.infer<typeof scheduledRunSchema>;

export const scheduledReportListSchema = z.object({ data: z.array(scheduledReportSchema), total: z.number().int() });

/** Path params `{ id, rid }`. */
export const scheduledReportParamsSchema = z.object({ id: idSchema, rid: idSchema });

/** An archived report (spec-notes §1 "archived"): its period, recipients, outcome and PDF size. */
export const archivedReportSchema = z.object({
  id: z.number().int(),
  scheduled_report_id: z.number().int().nullable(),
  name: z.string(),
  type: z.string(),
  start: z.string(),
  end: z.string(),
  recipients: z.array(z.string()),
  status: z.string(),
  reason: z.string().nullable(),
  size: z.number().int(),
  created_at: z.string(),
});
export type ArchivedReport = z.infer<typeof archivedReportSchema>;
export const archivedReportListSchema = z.object({ data: z.array(archivedReportSchema), total: z.number().int() });

/** Path params `{ id, aid }` of an archived report. */
export const archivedReportParamsSchema = z.object({ id: idSchema, aid: idSchema });

/** Paging of the scheduled and archived lists (spec-notes §9 page size 10). */
export const reportListQuerySchema = z.object({
  limit: z.coerce.number({ error: 'limit must be a whole number from 1 to 100.' }).int().min(1).max(100).optional(),
  offset: z.coerce.number({ error: 'offset must be a whole number.' }).int().min(0).optional(),
});
