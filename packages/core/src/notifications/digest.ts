import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import { categoryById, NOTIFICATION_MS, type NotificationInterval, type NotificationWindow } from '@cordon/shared';
import { categoryNameIn, type NameLanguage } from '@cordon/shared/category-names';
import type { Kysely } from 'kysely';
import type { CoreDeps } from '../context.ts';
import { sendMail } from '../mail/index.ts';
import { recipientsLanguage } from '../reports/index.ts';
import type { WorkerJob, WorkerLog } from '../worker/index.ts';

/** The most (category, domain) lines a digest lists; the totals count every hit. */
export const DIGEST_MAX_LINES = 50;
/** The most sources named per line. */
export const DIGEST_TOP_SOURCES = 3;

/** One line of a digest: blocked hits of one domain in one chosen category, with its top client addresses. */
export interface DigestLine {
  categoryId: number;
  category: string;
  domain: string;
  hits: number;
  /** The clients asking most, most first (ties by address), at most {@link DIGEST_TOP_SOURCES}. */
  sources: Array<{ ip: string; hits: number }>;
}

/** The figures of one digest: blocked hits of the chosen categories over `[start, end)` (epoch ms). */
export interface DigestFigures {
  start: number;
  end: number;
  /** Blocked queries in at least one chosen category (a query in two chosen categories counts once). */
  total: number;
  /** Hits per chosen category with any, most first. */
  byCategory: Array<{ categoryId: number; category: string; hits: number }>;
  /** Most hits first (then category id, domain), at most {@link DIGEST_MAX_LINES}. */
  lines: DigestLine[];
}

/**
 * Counts the blocked queries of policy `policyId` (customer `customerId`) whose categories meet
 * `categories` over `[start, end)`, from the query log (its `policy_id` is the policy that decided).
 */
export async function digestFigures(
  db: Kysely<Database>,
  customerId: number,
  policyId: number,
  categories: readonly number[],
  start: number,
  end: number,
): Promise<DigestFigures> {
  const rows = await db
    .selectFrom('query_log')
    .select(['qname', 'categories', 'client_ip', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('customer_id', '=', customerId)
    .where('ts', '>=', start)
    .where('ts', '<', end)
    .where('policy_id', '=', policyId)
    .where('action', '=', 'blocked')
    .where('categories', '!=', '')
    .groupBy(['qname', 'categories', 'client_ip'])
    .execute();
  const chosen = new Set(categories);
  let total = 0;
  const perCategory = new Map<number, number>();
  const perLine = new Map<string, { categoryId: number; domain: string; hits: number; sources: Map<string, number> }>();
  for (const r of rows) {
    const n = Number(r.n);
    const hit = r.categories
      .split(',')
      .map(Number)
      .filter((c) => chosen.has(c));
    if (hit.length === 0) continue;
    total += n;
    for (const c of new Set(hit)) {
      perCategory.set(c, (perCategory.get(c) ?? 0) + n);
      const key = `${c} ${r.qname}`;
      let line = perLine.get(key);
      if (!line) {
        line = { categoryId: c, domain: r.qname, hits: 0, sources: new Map() };
        perLine.set(key, line);
      }
      line.hits += n;
      line.sources.set(r.client_ip, (line.sources.get(r.client_ip) ?? 0) + n);
    }
  }
  const name = (id: number) => categoryById(id)?.name ?? String(id);
  const lines = [...perLine.values()]
    .sort((a, b) => b.hits - a.hits || a.categoryId - b.categoryId || a.domain.localeCompare(b.domain))
    .slice(0, DIGEST_MAX_LINES)
    .map((l) => ({
      categoryId: l.categoryId,
      category: name(l.categoryId),
      domain: l.domain,
      hits: l.hits,
      sources: [...l.sources.entries()]
        .map(([ip, hits]) => ({ ip, hits }))
        .sort((a, b) => b.hits - a.hits || a.ip.localeCompare(b.ip))
        .slice(0, DIGEST_TOP_SOURCES),
    }));
  const byCategory = [...perCategory.entries()]
    .map(([categoryId, hits]) => ({ categoryId, category: name(categoryId), hits }))
    .sort((a, b) => b.hits - a.hits || a.categoryId - b.categoryId);
  return { start, end, total, byCategory, lines };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** `YYYY-MM-DD HH:mm` of `at` (epoch ms) in `timeZone`. */
function localTime(at: number, timeZone: string): string {
  return new Intl.DateTimeFormat('sv-SE', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(at);
}

/**
 * `figures` with each category named in `lang` (issue 29 "French complete, category names included";
 * docs/decisions.md "Category names in the reader's language").
 */
export function digestInLanguage(figures: DigestFigures, lang: NameLanguage): DigestFigures {
  const name = (id: number, english: string) => categoryNameIn(lang, id, english);
  return {
    ...figures,
    byCategory: figures.byCategory.map((c) => ({ ...c, category: name(c.categoryId, c.category) })),
    lines: figures.lines.map((l) => ({ ...l, category: name(l.categoryId, l.category) })),
  };
}

/**
 * The digest mail of `figures` for policy `policyName` of `customerName`: a subject, a plain-text
 * body and an HTML table (category, domain, hits, top sources), times in `timeZone`.
 */
export function digestMessage(
  figures: DigestFigures,
  names: { policy: string; customer: string },
  timeZone: string,
): { subject: string; text: string; html: string } {
  const from = localTime(figures.start, timeZone);
  const to = localTime(figures.end, timeZone);
  const sources = (l: DigestLine) => l.sources.map((s) => `${s.ip} (${s.hits})`).join(', ');
  const subject = `Blocked categories for policy ${names.policy} (${names.customer}): ${figures.total} hits`;
  const text = [
    `Blocked requests in the notified categories for policy ${names.policy} of ${names.customer},`,
    `${from} to ${to} (${timeZone}).`,
    '',
    `Total: ${figures.total}`,
    ...figures.byCategory.map((c) => `${c.category}: ${c.hits}`),
    '',
    'Category | Domain | Hits | Top sources',
    ...figures.lines.map((l) => `${l.category} | ${l.domain} | ${l.hits} | ${sources(l)}`),
  ].join('\n');
  const cell = (s: string | number, align = 'left') =>
    `<td style="padding:4px 8px;border:1px solid #ccc;text-align:${align}">${escapeHtml(String(s))}</td>`;
  const head = ['Category', 'Domain', 'Hits', 'Top sources']
    .map((h) => `<th style="padding:4px 8px;border:1px solid #ccc;text-align:left">${h}</th>`)
    .join('');
  const html = [
    `<p>Blocked requests in the notified categories for policy <b>${escapeHtml(names.policy)}</b> of`,
    `${escapeHtml(names.customer)}, ${escapeHtml(from)} to ${escapeHtml(to)} (${escapeHtml(timeZone)}).</p>`,
    `<p>Total: <b>${figures.total}</b></p>`,
    `<table style="border-collapse:collapse"><thead><tr>${head}</tr></thead><tbody>`,
    ...figures.lines.map(
      (l) => `<tr>${cell(l.category)}${cell(l.domain)}${cell(l.hits, 'right')}${cell(sources(l))}</tr>`,
    ),
    '</tbody></table>',
  ].join('\n');
  return { subject, text, html };
}

/** The longest window a digest counts, ms: a week (the longest period), however long the mail server was down. */
export const MAX_DIGEST_WINDOW_MS = 7 * 86_400_000;

/** The outcome of one policy's digest run. */
export interface DigestOutcome {
  policyId: number;
  status: 'sent' | 'no hits' | 'not sent';
  total: number;
  reason: string | null;
}

/**
 * Runs the digest of every policy whose notifications are on (categories and recipients) and due
 * (its interval elapsed since `last_run_at`) at `now`: claims it by a conditional update of
 * `last_run_at` (another worker or a restart then skips it), counts its window and mails the
 * recipients through the MSP's mail settings (else the system's) when there is any hit. Stores
 * `last_status` (`sent`, `no hits`, `not sent` with `last_reason`) and `last_sent_at`.
 *
 * The window ends at `now` and starts `period` before the time the digest fell due
 * (`last_run_at` + interval; `now` − `period` for a first digest), at most
 * {@link MAX_DIGEST_WINDOW_MS} back: with interval = period the windows follow each other without
 * gap or overlap, whatever the job's tick. A send that fails puts `last_run_at` back, so the digest
 * is due again at the job's next tick and its window still starts where the failed one did: no hit
 * goes unreported because the mail server was down (docs/decisions.md "Category notifications").
 */
export async function runDigests(deps: CoreDeps, now: number, log?: WorkerLog): Promise<DigestOutcome[]> {
  const db = deps.handle.db;
  const rows = await db
    .selectFrom('policy_notifications')
    .innerJoin('policies', 'policies.id', 'policy_notifications.policy_id')
    .innerJoin('customers', 'customers.id', 'policy_notifications.customer_id')
    .select([
      'policy_notifications.policy_id as policyId',
      'policy_notifications.customer_id as customerId',
      'policy_notifications.categories as categories',
      'policy_notifications.emails as emails',
      'policy_notifications.interval as interval',
      'policy_notifications.period as period',
      'policy_notifications.last_run_at as lastRunAt',
      'policies.name as policyName',
      'customers.account_name as customerName',
      'customers.msp_id as mspId',
      'customers.timezone as timezone',
    ])
    .where('policy_notifications.categories', '!=', '[]')
    .where('policy_notifications.emails', '!=', '[]')
    .whereRef('policies.customer_id', '=', 'policy_notifications.customer_id')
    .orderBy('policy_notifications.policy_id')
    .execute();
  const outcomes: DigestOutcome[] = [];
  for (const r of rows) {
    const every = NOTIFICATION_MS[r.interval as NotificationInterval] ?? NOTIFICATION_MS.daily;
    if (r.lastRunAt !== null && now - Date.parse(r.lastRunAt) < every) continue;
    const at = nowIso(now);
    const claimed = await db
      .updateTable('policy_notifications')
      .set({ last_run_at: at })
      .where('policy_id', '=', r.policyId)
      .where((eb) => (r.lastRunAt === null ? eb('last_run_at', 'is', null) : eb('last_run_at', '=', r.lastRunAt)))
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) continue;
    const period = NOTIFICATION_MS[r.period as NotificationWindow] ?? NOTIFICATION_MS.day;
    const dueAt = r.lastRunAt === null ? now : Date.parse(r.lastRunAt) + every;
    const from = Math.max(dueAt - period, now - MAX_DIGEST_WINDOW_MS);
    const categories = JSON.parse(r.categories) as number[];
    const emails = JSON.parse(r.emails) as string[];
    let status: DigestOutcome['status'] = 'no hits';
    let reason: string | null = null;
    let total = 0;
    try {
      const figures = await digestFigures(db, r.customerId, r.policyId, categories, from, now);
      total = figures.total;
      if (total > 0) {
        // Category names in the language of the recipients' admin accounts (else English).
        const named = digestInLanguage(figures, await recipientsLanguage(db, r.customerId, emails));
        const message = digestMessage(named, { policy: r.policyName, customer: r.customerName }, r.timezone || 'UTC');
        await sendMail(deps, { mspId: r.mspId }, { to: emails, ...message });
        status = 'sent';
      }
    } catch (err) {
      status = 'not sent';
      reason = err instanceof Error ? err.message : String(err);
    }
    await db
      .updateTable('policy_notifications')
      .set(
        status === 'sent'
          ? { last_status: status, last_reason: reason, last_sent_at: at }
          : status === 'not sent'
            ? // Due again at the next tick, with the same window start.
              { last_status: status, last_reason: reason, last_run_at: r.lastRunAt }
            : { last_status: status, last_reason: reason },
      )
      .where('policy_id', '=', r.policyId)
      .execute();
    log?.info({ policy: r.policyId, status, total }, 'category notification digest handled');
    outcomes.push({ policyId: r.policyId, status, total, reason });
  }
  return outcomes;
}

/** The worker job of category notifications (docs/architecture.md "Worker"), every 5 minutes: {@link runDigests}. */
export function digestJob(): WorkerJob {
  return {
    name: 'notifications.digest',
    intervalMs: 5 * 60_000,
    run: async ({ deps, now, log }) => {
      await runDigests(deps, now, log);
    },
  };
}
