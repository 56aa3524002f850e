import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  type ArchivedReport,
  calendarDay,
  type Report,
  type ReportCode,
  type ReportFrequency,
  reportByCode,
  type ScheduledReport,
  type ScheduledReportCreate,
  type ScheduledReportUpdate,
  zonedDate,
} from '@cordon/shared';
import { acceptedNameLanguage, categoryNameIn, type NameLanguage, nameLanguage } from '@cordon/shared/category-names';
import type { Kysely, Selectable } from 'kysely';
import { type Caller, type CoreDeps, OPERATOR } from '../context.ts';
import { getCustomer } from '../customers/index.ts';
import { sendMail } from '../mail/index.ts';
import { mutate } from '../mutation/index.ts';
import { customerInScope, customerTenant, ownedInScope, scopeOf } from '../tenancy/index.ts';
import type { WorkerJob } from '../worker/index.ts';
import { buildReport, periodOf, type ReportPeriod, requestedPeriod } from './data.ts';
import { type PdfBranding, renderReportPdf, reportTitle } from './pdf.ts';

/** Archived reports are kept this many months (spec-notes §9). */
export const ARCHIVE_MONTHS = 6;

/**
 * The current period key of a frequency in `timeZone` at `now` and the period the report sent for
 * it covers (spec-notes §9: daily; weekly on Monday; monthly on the 1st): daily — key today, report
 * yesterday; weekly — key this week's Monday, report the Monday–Sunday before; monthly — key
 * `YYYY-MM`, report the month before. A report is due when its `last_period` differs from the key.
 */
export function periodFor(
  frequency: ReportFrequency,
  timeZone: string,
  now: number,
): { key: string; start: string; end: string } {
  const t = zonedDate(timeZone, now);
  if (frequency === 'daily') {
    const y = calendarDay(t.year, t.month, t.day - 1);
    return { key: calendarDay(t.year, t.month, t.day), start: y, end: y };
  }
  if (frequency === 'weekly') {
    const weekday = (new Date(Date.UTC(t.year, t.month - 1, t.day)).getUTCDay() + 6) % 7; // Monday 0
    const monday = t.day - weekday;
    return {
      key: calendarDay(t.year, t.month, monday),
      start: calendarDay(t.year, t.month, monday - 7),
      end: calendarDay(t.year, t.month, monday - 1),
    };
  }
  return {
    key: calendarDay(t.year, t.month, 1).slice(0, 7),
    start: calendarDay(t.year, t.month - 1, 1),
    end: calendarDay(t.year, t.month, 0),
  };
}

type Row = Selectable<Database['scheduled_reports']>;

function toWire(r: Row): ScheduledReport {
  return {
    id: r.id,
    name: r.name,
    type: r.type,
    frequency: r.frequency,
    recipients: JSON.parse(r.recipients) as string[],
    categories: JSON.parse(r.categories) as number[],
    sent_date: r.sent_at,
    status: r.status,
    reason: r.reason,
    created_at: r.created_at,
  };
}

async function findRow(db: Kysely<Database>, caller: Caller, customerId: number, rid: number): Promise<Row> {
  const row = await db
    .selectFrom('scheduled_reports')
    .selectAll('scheduled_reports')
    .where(ownedInScope('scheduled_reports.customer_id', scopeOf(caller)))
    .where('scheduled_reports.customer_id', '=', customerId)
    .where('scheduled_reports.id', '=', rid)
    .executeTakeFirst();
  if (!row) throw new ApiError('ERR_NOT_FOUND');
  return row;
}

/** `GET /users/{id}/scheduledreports`: the customer's scheduled reports by name. */
export async function listScheduled(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  page: { limit?: number | undefined; offset?: number | undefined },
): Promise<{ data: ScheduledReport[]; total: number }> {
  await getCustomer(deps, caller, customerId);
  const base = deps.handle.db
    .selectFrom('scheduled_reports')
    .where(ownedInScope('scheduled_reports.customer_id', scopeOf(caller)))
    .where('scheduled_reports.customer_id', '=', customerId);
  const [rows, total] = await Promise.all([
    base
      .selectAll('scheduled_reports')
      .orderBy('name')
      .orderBy('id')
      .limit(page.limit ?? 100)
      .offset(page.offset ?? 0)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { data: rows.map(toWire), total: Number(total.n) };
}

/** `GET /users/{id}/scheduledreports/{rid}`. @throws ApiError ERR_NOT_FOUND */
export async function getScheduled(deps: CoreDeps, caller: Caller, customerId: number, rid: number) {
  return toWire(await findRow(deps.handle.db, caller, customerId, rid));
}

/**
 * `POST /users/{id}/scheduledreports`: a new schedule, first sent at the next period start (its
 * `last_period` is the current one). Audit `scheduledreport.create`.
 * @throws ApiError ERR_NOT_FOUND (customer not visible)
 */
export async function createScheduled(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  body: ScheduledReportCreate,
): Promise<ScheduledReport> {
  const customer = await getCustomer(deps, caller, customerId);
  const key = periodFor(body.frequency, customer.timezone || 'UTC', deps.now()).key;
  const scope = scopeOf(caller);
  const id = await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'scheduledreport.create', entity: 'scheduled_report' } },
    async (trx, note) => {
      const tenant = await customerTenant(trx, scope, customerId);
      if (!tenant) throw new ApiError('ERR_NOT_FOUND');
      const at = nowIso(deps.now());
      const row = await trx
        .insertInto('scheduled_reports')
        .values({
          customer_id: customerId,
          name: body.name,
          type: body.type,
          frequency: body.frequency,
          recipients: JSON.stringify(body.recipients),
          categories: JSON.stringify(body.categories ?? []),
          last_period: key,
          sent_at: null,
          status: null,
          reason: null,
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      note.entityId = row.id;
      note.mspId = tenant.mspId;
      note.customerId = customerId;
      note.after = { ...body };
      return row.id;
    },
  );
  return getScheduled(deps, caller, customerId, id);
}

/** `POST /users/{id}/scheduledreports/{rid}` (an update). Audit `scheduledreport.update`. @throws ApiError ERR_NOT_FOUND */
export async function updateScheduled(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  rid: number,
  body: ScheduledReportUpdate,
): Promise<ScheduledReport> {
  const customer = await getCustomer(deps, caller, customerId);
  await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'scheduledreport.update', entity: 'scheduled_report' } },
    async (trx, note) => {
      const before = await findRow(trx, caller, customerId, rid);
      const changes: Partial<Row> = { updated_at: nowIso(deps.now()) };
      if (body.name !== undefined) changes.name = body.name;
      if (body.type !== undefined) changes.type = body.type;
      if (body.recipients !== undefined) changes.recipients = JSON.stringify(body.recipients);
      if (body.categories !== undefined) changes.categories = JSON.stringify(body.categories);
      if (body.frequency !== undefined && body.frequency !== before.frequency) {
        changes.frequency = body.frequency;
        changes.last_period = periodFor(body.frequency, customer.timezone || 'UTC', deps.now()).key;
      }
      await trx.updateTable('scheduled_reports').set(changes).where('id', '=', rid).execute();
      note.entityId = rid;
      note.customerId = customerId;
      note.before = toWire(before);
      note.after = { ...body };
    },
  );
  return getScheduled(deps, caller, customerId, rid);
}

/** `DELETE /users/{id}/scheduledreports/{rid}`: its archived PDFs stay. Audit `scheduledreport.delete`. */
export async function deleteScheduled(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  rid: number,
): Promise<{ deleted: true }> {
  await getCustomer(deps, caller, customerId);
  await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'scheduledreport.delete', entity: 'scheduled_report' } },
    async (trx, note) => {
      const before = await findRow(trx, caller, customerId, rid);
      await trx.deleteFrom('scheduled_reports').where('id', '=', rid).execute();
      note.entityId = rid;
      note.customerId = customerId;
      note.before = toWire(before);
    },
  );
  return { deleted: true };
}

/** The PDF header of a customer: its MSP's interface title and logo, else the system's, else the product name. */
async function brandingOf(db: Kysely<Database>, customerId: number): Promise<PdfBranding> {
  const c = await db
    .selectFrom('customers')
    .select(['account_name', 'msp_id'])
    .where('id', '=', customerId)
    .executeTakeFirstOrThrow();
  let title = 'Cordon';
  let logo: Uint8Array | null = null;
  try {
    const rows = await db
      .selectFrom('ui_interfaces')
      .select(['msp_id', 'title', 'logo', 'logo_type'])
      .where((eb) => eb.or([eb('msp_id', '=', c.msp_id), eb('msp_id', 'is', null)]))
      .execute();
    const own = rows.find((r) => r.msp_id === c.msp_id);
    const sys = rows.find((r) => r.msp_id === null);
    title = own?.title || sys?.title || title;
    const withLogo = [own, sys].find((r) => r?.logo && (r.logo_type === 'image/png' || r.logo_type === 'image/jpeg'));
    logo = withLogo?.logo ?? null;
  } catch {
    // No interface branding stored (or its table absent): the product name, no logo.
  }
  return { title, logo, customerName: c.account_name };
}

/**
 * A report with its category rows named in `lang` (a category report's key is the category id;
 * issue 29 "French complete, category names included"); any other report unchanged.
 */
export function withCategoryNames(report: Report, lang: NameLanguage): Report {
  if (report.dimension !== 'category') return report;
  return { ...report, rows: report.rows.map((r) => ({ ...r, name: categoryNameIn(lang, Number(r.key), r.name) })) };
}

/**
 * The language a scheduled report's recipients read (docs/decisions.md "Category names in the reader's
 * language"): the saved console language of the first recipient, in the schedule's order, who is an
 * admin of the customer, of its MSP or of the system and has chosen one; else English.
 */
export async function recipientsLanguage(
  db: Kysely<Database>,
  customerId: number,
  recipients: readonly string[],
): Promise<NameLanguage> {
  if (recipients.length === 0) return 'en';
  const customer = await db.selectFrom('customers').select('msp_id').where('id', '=', customerId).executeTakeFirst();
  if (!customer) return 'en';
  const admins = await db
    .selectFrom('admins')
    .select(['email', 'lang'])
    .where(
      'email',
      'in',
      recipients.map((r) => r.toLowerCase()),
    )
    .where('lang', '!=', '')
    // The customer's tenant chain only: an address another tenant's admin uses says nothing here.
    .where((eb) =>
      eb.or([
        eb('customer_id', '=', customerId),
        eb.and([eb('customer_id', 'is', null), eb('msp_id', '=', customer.msp_id)]),
        eb.and([eb('customer_id', 'is', null), eb('msp_id', 'is', null)]),
      ]),
    )
    .execute();
  const byEmail = new Map(admins.map((a) => [a.email.toLowerCase(), a.lang]));
  const first = recipients.map((r) => byEmail.get(r.toLowerCase())).find((l) => l !== undefined);
  return nameLanguage(first);
}

/**
 * The language a one-off PDF's requester reads: the first supported language of the request's
 * `Accept-Language` (the console sends its interface language), else the calling admin's saved
 * console language, else English (docs/decisions.md "Category names in the reader's language").
 */
export async function requesterLanguage(
  db: Kysely<Database>,
  caller: Caller,
  acceptLanguage?: string | null,
): Promise<NameLanguage> {
  const asked = acceptedNameLanguage(acceptLanguage);
  if (asked) return asked;
  if (caller.adminId === null) return 'en';
  const admin = await db.selectFrom('admins').select('lang').where('id', '=', caller.adminId).executeTakeFirst();
  return nameLanguage(admin?.lang);
}

/**
 * Builds the PDF of report `code` over `period` for customer `customerId` (as the operator: the
 * caller was checked before), its category names in `lang`. The rows of a category report are
 * limited to `categories` when given.
 */
export async function reportPdf(
  deps: CoreDeps,
  customerId: number,
  code: ReportCode,
  period: ReportPeriod,
  categories: readonly number[] = [],
  lang: NameLanguage = 'en',
): Promise<{ pdf: Buffer; report: Report }> {
  const report = withCategoryNames(await buildReport(deps, OPERATOR, customerId, code, period, 100), lang);
  if (categories.length > 0 && report.dimension === 'category') {
    const keep = new Set(categories.map(String));
    report.rows = report.rows.filter((r) => keep.has(r.key));
  }
  const pdf = await renderReportPdf(await brandingOf(deps.handle.db, customerId), [report], new Date(deps.now()));
  return { pdf, report };
}

/**
 * Builds, mails and archives one scheduled report for local days `start`–`end`: the PDF, its
 * category names in the recipients' language ({@link recipientsLanguage}), goes to the
 * recipients through the MSP's mail settings (else the system's); the outcome is `sent`, or
 * `report not sent` with the reason (no mail settings, the server's refusal), stored on the
 * schedule and in the archive.
 */
export async function sendScheduled(deps: CoreDeps, row: Row, start: string, end: string): Promise<void> {
  const db = deps.handle.db;
  const customer = await db
    .selectFrom('customers')
    .select(['timezone', 'msp_id', 'account_name'])
    .where('id', '=', row.customer_id)
    .executeTakeFirstOrThrow();
  const timeZone = customer.timezone || 'UTC';
  const entry = reportByCode(row.type);
  const recipients = JSON.parse(row.recipients) as string[];
  let status = 'sent';
  let reason: string | null = null;
  let pdf: Buffer = Buffer.alloc(0);
  try {
    if (!entry) throw new Error(`unknown report type ${row.type}`);
    const built = await reportPdf(
      deps,
      row.customer_id,
      entry.code,
      periodOf(timeZone, start, end),
      JSON.parse(row.categories),
      await recipientsLanguage(db, row.customer_id, recipients),
    );
    pdf = built.pdf;
    const title = reportTitle(built.report);
    await sendMail(
      deps,
      { mspId: customer.msp_id },
      {
        to: recipients,
        subject: `${row.name}: ${title}, ${start} to ${end}`,
        text: `${row.name} (${title}) for ${customer.account_name}, ${start} to ${end} (${timeZone}).\nTotal requests: ${built.report.total}.\nThe report is attached as a PDF.`,
        attachments: [{ filename: `${row.type}_${start}_${end}.pdf`, content: pdf, contentType: 'application/pdf' }],
      },
    );
  } catch (err) {
    status = 'report not sent';
    reason = err instanceof Error ? err.message : String(err);
  }
  const at = nowIso(deps.now());
  await db
    .updateTable('scheduled_reports')
    .set({ sent_at: status === 'sent' ? at : row.sent_at, status, reason })
    .where('id', '=', row.id)
    .execute();
  await db
    .insertInto('report_archive')
    .values({
      customer_id: row.customer_id,
      scheduled_report_id: row.id,
      name: row.name,
      type: row.type,
      period_start: start,
      period_end: end,
      recipients: row.recipients,
      status,
      reason,
      pdf,
      created_at: at,
    })
    .execute();
}

/**
 * `POST /users/{id}/scheduledreports/{rid}/run`: sends the report now for its last full period
 * (yesterday, last week, last month) and answers the schedule with the outcome and that period's
 * first and last calendar days.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function runScheduled(deps: CoreDeps, caller: Caller, customerId: number, rid: number) {
  const customer = await getCustomer(deps, caller, customerId);
  const row = await findRow(deps.handle.db, caller, customerId, rid);
  const p = periodFor(row.frequency as ReportFrequency, customer.timezone || 'UTC', deps.now());
  await sendScheduled(deps, row, p.start, p.end);
  return { ...(await getScheduled(deps, caller, customerId, rid)), period_start: p.start, period_end: p.end };
}

/** `GET /users/{id}/reports/archive`: archived PDFs, newest first. */
export async function listArchive(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  page: { limit?: number | undefined; offset?: number | undefined },
): Promise<{ data: ArchivedReport[]; total: number }> {
  await getCustomer(deps, caller, customerId);
  const base = deps.handle.db
    .selectFrom('report_archive')
    .innerJoin('customers', 'customers.id', 'report_archive.customer_id')
    .where(customerInScope(scopeOf(caller)))
    .where('report_archive.customer_id', '=', customerId);
  const [rows, total] = await Promise.all([
    base
      .select([
        'report_archive.id',
        'report_archive.scheduled_report_id',
        'report_archive.name',
        'report_archive.type',
        'report_archive.period_start',
        'report_archive.period_end',
        'report_archive.recipients',
        'report_archive.status',
        'report_archive.reason',
        'report_archive.created_at',
        (eb) => eb.fn<number>('length', ['report_archive.pdf']).as('size'),
      ])
      .orderBy('report_archive.created_at', 'desc')
      .orderBy('report_archive.id', 'desc')
      .limit(page.limit ?? 100)
      .offset(page.offset ?? 0)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    total: Number(total.n),
    data: rows.map((r) => ({
      id: r.id,
      scheduled_report_id: r.scheduled_report_id,
      name: r.name,
      type: r.type,
      start: r.period_start,
      end: r.period_end,
      recipients: JSON.parse(r.recipients) as string[],
      status: r.status,
      reason: r.reason,
      size: Number(r.size),
      created_at: r.created_at,
    })),
  };
}

/** `GET /users/{id}/reports/archive/{aid}/pdf`: the archived PDF and its file name. @throws ApiError ERR_NOT_FOUND */
export async function archivedPdf(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  aid: number,
): Promise<{ pdf: Buffer; fileName: string }> {
  const row = await deps.handle.db
    .selectFrom('report_archive')
    .innerJoin('customers', 'customers.id', 'report_archive.customer_id')
    .select(['report_archive.pdf', 'report_archive.type', 'report_archive.period_start', 'report_archive.period_end'])
    .where(customerInScope(scopeOf(caller)))
    .where('report_archive.customer_id', '=', customerId)
    .where('report_archive.id', '=', aid)
    .executeTakeFirst();
  if (!row || row.pdf.length === 0) throw new ApiError('ERR_NOT_FOUND');
  return { pdf: Buffer.from(row.pdf), fileName: `${row.type}_${row.period_start}_${row.period_end}.pdf` };
}

/**
 * The worker job of scheduled reports (docs/architecture.md "Worker"), every 5 minutes: each schedule
 * whose period key moved on (a new day, a Monday, a 1st, in its customer's time zone) is claimed by a
 * conditional update of `last_period` and sent for the period before; archived reports older than
 * {@link ARCHIVE_MONTHS} months are deleted.
 */
export function scheduledReportsJob(): WorkerJob {
  return {
    name: 'reports.scheduled',
    intervalMs: 5 * 60_000,
    run: async ({ deps, log }) => {
      const db = deps.handle.db;
      const now = deps.now();
      const rows = await db
        .selectFrom('scheduled_reports')
        .innerJoin('customers', 'customers.id', 'scheduled_reports.customer_id')
        .selectAll('scheduled_reports')
        .select('customers.timezone as timezone')
        .execute();
      for (const r of rows) {
        const p = periodFor(r.frequency as ReportFrequency, r.timezone || 'UTC', now);
        if (r.last_period === p.key) continue;
        const claimed = await db
          .updateTable('scheduled_reports')
          .set({ last_period: p.key })
          .where('id', '=', r.id)
          .where((eb) =>
            r.last_period === null ? eb('last_period', 'is', null) : eb('last_period', '=', r.last_period),
          )
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) !== 1) continue;
        const { timezone: _tz, ...row } = r;
        await sendScheduled(deps, { ...row, last_period: p.key }, p.start, p.end);
        log.info({ report: r.id, start: p.start, end: p.end }, 'scheduled report handled');
      }
      const d = new Date(now);
      const cutoff = new Date(
        Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - ARCHIVE_MONTHS, d.getUTCDate()),
      ).toISOString();
      await db.deleteFrom('report_archive').where('created_at', '<', cutoff).execute();
    },
  };
}

/**
 * `GET /users/{id}/reports/{code}/pdf?start&end`: a one-off PDF of the report over the requested local
 * days (default the last 7), and its file name `r_…_START_END.pdf`. Category names are in the
 * requester's language ({@link requesterLanguage}; `acceptLanguage` is the request's header).
 * @throws ApiError ERR_NOT_FOUND (customer not visible), ERR_VALIDATION (dates)
 */
export async function oneOffPdf(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  code: ReportCode,
  query: { start?: string | undefined; end?: string | undefined },
  acceptLanguage?: string | null,
): Promise<{ pdf: Buffer; fileName: string }> {
  const customer = await getCustomer(deps, caller, customerId);
  const period = requestedPeriod(customer.timezone || 'UTC', deps.now(), query.start, query.end);
  const lang = await requesterLanguage(deps.handle.db, caller, acceptLanguage);
  const { pdf } = await reportPdf(deps, customerId, code, period, [], lang);
  return { pdf, fileName: `${code}_${period.start}_${period.end}.pdf` };
}
