import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import { categoryById, parseLicenceLimit, SECURITY_CATEGORY_IDS, type WebhookEventType } from '@cordon/shared';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { CoreDeps } from '../context.ts';
import { eventBody, newEventId } from './service.ts';

/** A security-category hit is sent at most once per (customer, domain, client) per this interval, ms (issue 26). */
export const SECURITY_HIT_INTERVAL_MS = 3_600_000;
/** The most log rows one producer reads per run (the rest on the next run). */
export const PRODUCE_BATCH = 5000;

/** Who an event is for: a customer's event goes to its endpoints and its MSP's; an MSP's to the MSP's; `all` to every MSP's. */
type Audience = { customerId: number } | { mspId: number } | 'all-msps';

const SECURITY = new Set(SECURITY_CATEGORY_IDS);

/** The licence-use thresholds announced, percent of the MSP's customer limit (issue 26). */
export const LICENCE_THRESHOLDS: readonly number[] = [80, 100];

/**
 * The thresholds of {@link LICENCE_THRESHOLDS} the MSP's licence use crossed upwards when its customer
 * `customerId` was created: its customers up to that id (ids grow; deleted ones no longer count)
 * against its licence as a customer limit (issue 11: a whole number, else no limit and no event).
 */
async function licenceCrossed(
  trx: Transaction<Database>,
  mspId: number,
  customerId: number,
): Promise<{ used: number; limit: number; crossed: number[] } | null> {
  const msp = await trx.selectFrom('msps').select('license').where('id', '=', mspId).executeTakeFirst();
  const limit = parseLicenceLimit(msp?.license ?? '');
  if (limit === null || limit === 0) return null;
  const row = await trx
    .selectFrom('customers')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('msp_id', '=', mspId)
    .where('id', '<=', customerId)
    .executeTakeFirstOrThrow();
  const used = Number(row.n);
  const crossed = LICENCE_THRESHOLDS.filter((t) => used * 100 >= t * limit && (used - 1) * 100 < t * limit);
  return crossed.length > 0 ? { used, limit, crossed } : null;
}

/** The admin-change audit actions sent as `admin.changed` (docs/api.md "Webhooks"). */
const ADMIN_ACTIONS = new Set([
  'admin.create',
  'admin.delete',
  'admin.update',
  'admin.2fa_enable',
  'admin.2fa_disable',
  'admin.2fa_reset',
  'admin.2fa_recovery_codes',
]);

/**
 * Queues one event for every enabled endpoint of `audience` subscribed to `type` (one delivery each,
 * due now, the same event id and body).
 * @returns how many deliveries were queued
 */
export async function enqueueEvent(
  db: Kysely<Database>,
  audience: Audience,
  type: WebhookEventType,
  data: Record<string, unknown>,
  now: number,
): Promise<number> {
  let query = db.selectFrom('webhook_endpoints').select(['id', 'events']).where('enabled', '=', 1);
  if (audience === 'all-msps') query = query.where('customer_id', 'is', null);
  else if ('mspId' in audience) query = query.where('customer_id', 'is', null).where('msp_id', '=', audience.mspId);
  else {
    const customerId = audience.customerId;
    query = query.where((eb) =>
      eb.or([
        eb('customer_id', '=', customerId),
        eb.and([
          eb('customer_id', 'is', null),
          eb('msp_id', '=', eb.selectFrom('customers').select('msp_id').where('id', '=', customerId)),
        ]),
      ]),
    );
  }
  const targets = (await query.execute()).filter((e) => (JSON.parse(e.events) as string[]).includes(type));
  if (targets.length === 0) return 0;
  const id = newEventId();
  const body = eventBody(id, type, now, data);
  await db
    .insertInto('webhook_deliveries')
    .values(
      targets.map((e) => ({
        endpoint_id: e.id,
        event_id: id,
        type,
        payload: body,
        status: 'pending',
        next_attempt_at: now,
        last_status_code: null,
        last_error: null,
        created_at: nowIso(now),
        delivered_at: null,
      })),
    )
    .execute();
  return targets.length;
}

/**
 * The watermark `name` in `trx`, or null the first time. On PostgreSQL the row is locked (another
 * worker's producer waits, then reads the moved watermark).
 */
async function watermark(trx: Transaction<Database>, name: string, pg: boolean): Promise<number | null> {
  const lock = pg ? sql` for update` : sql``;
  const row = await sql<{
    last_id: number | string;
  }>`select last_id from webhook_watermarks where name = ${name}${lock}`.execute(trx);
  const v = row.rows[0]?.last_id;
  return v === undefined ? null : Number(v);
}

async function setWatermark(trx: Transaction<Database>, name: string, lastId: number, first: boolean): Promise<void> {
  if (first) {
    await trx
      .insertInto('webhook_watermarks')
      .values({ name, last_id: lastId })
      .onConflict((oc) => oc.column('name').doUpdateSet({ last_id: lastId }))
      .execute();
  } else {
    await trx.updateTable('webhook_watermarks').set({ last_id: lastId }).where('name', '=', name).execute();
  }
}

/** The highest id of `table`, 0 when empty. */
async function maxId(trx: Transaction<Database>, table: 'query_log' | 'audit_log' | 'report_archive'): Promise<number> {
  const row = await trx
    .selectFrom(table)
    .select((eb) => eb.fn.max<number | string | null>('id').as('m'))
    .executeTakeFirst();
  return Number(row?.m ?? 0);
}

/**
 * Security-category hits: blocked query-log rows past the watermark whose categories include a
 * security category ({@link SECURITY_CATEGORY_IDS}: Compromised, Phishing/Fraud, Spyware and
 * Malicious Sites, Spam), at most one event per (customer, domain, client) per
 * {@link SECURITY_HIT_INTERVAL_MS} (`webhook_hits`). The first run starts at the log's end (no
 * replay of history).
 */
async function produceSecurityHits(trx: Transaction<Database>, now: number, pg: boolean): Promise<void> {
  const name = 'query_log';
  const from = await watermark(trx, name, pg);
  if (from === null) {
    await setWatermark(trx, name, await maxId(trx, 'query_log'), true);
    return;
  }
  // Read up to the log's end as it is now: rows inserted meanwhile wait for the next run.
  const top = await maxId(trx, 'query_log');
  if (top <= from) return;
  const subscribed = await trx
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('enabled', '=', 1)
    .where('events', 'like', '%"security.hit"%')
    .limit(1)
    .executeTakeFirst();
  if (!subscribed) {
    // Nobody listens: skip the scan (hits are not sent after the fact to a new endpoint).
    await setWatermark(trx, name, top, false);
    return;
  }
  // Only blocked, categorised rows are read, so a busy log costs one range scan per run.
  const rows = await trx
    .selectFrom('query_log')
    .select([
      'id',
      'ts',
      'customer_id',
      'location_id',
      'device_id',
      'policy_id',
      'client_ip',
      'qname',
      'qtype',
      'categories',
      'user_name',
    ])
    .where('id', '>', from)
    .where('id', '<=', top)
    .where('action', '=', 'blocked')
    .where('categories', '!=', '')
    .orderBy('id')
    .limit(PRODUCE_BATCH)
    .execute();
  for (const r of rows) {
    const ids = r.categories.split(',').map(Number);
    const hit = ids.filter((c) => SECURITY.has(c));
    if (hit.length === 0) continue;
    const ts = Number(r.ts);
    const last = await trx
      .selectFrom('webhook_hits')
      .select('last_at')
      .where('customer_id', '=', r.customer_id)
      .where('domain', '=', r.qname)
      .where('client_ip', '=', r.client_ip)
      .executeTakeFirst();
    if (last && ts - Number(last.last_at) < SECURITY_HIT_INTERVAL_MS) continue;
    if (last) {
      await trx
        .updateTable('webhook_hits')
        .set({ last_at: ts })
        .where('customer_id', '=', r.customer_id)
        .where('domain', '=', r.qname)
        .where('client_ip', '=', r.client_ip)
        .execute();
    } else {
      await trx
        .insertInto('webhook_hits')
        .values({ customer_id: r.customer_id, domain: r.qname, client_ip: r.client_ip, last_at: ts })
        .execute();
    }
    await enqueueEvent(
      trx,
      { customerId: r.customer_id },
      'security.hit',
      {
        user_id: r.customer_id,
        domain: r.qname,
        qtype: r.qtype,
        client_ip: r.client_ip,
        location_id: r.location_id,
        device_id: r.device_id,
        policy_id: r.policy_id,
        internal_user: r.user_name || null,
        categories: hit.map((c) => ({ id: c, name: categoryById(c)?.name ?? String(c) })),
        queried_at: nowIso(ts),
      },
      now,
    );
  }
  await setWatermark(trx, name, rows.length === PRODUCE_BATCH ? Number(rows[rows.length - 1]?.id) : top, false);
  // Hits older than the interval can no longer suppress anything.
  await trx
    .deleteFrom('webhook_hits')
    .where('last_at', '<', now - 2 * SECURITY_HIT_INTERVAL_MS)
    .execute();
}

/**
 * Audit-log events past the watermark: `device.enrol` → `device.enrolled` (the customer's),
 * admin and 2FA changes → `admin.changed` (the admin's customer, else MSP), a failed `feed.run` →
 * `feed.failed` (every MSP: the category database is shared), a `customer.create` that takes the MSP's
 * licence use past a threshold → `licence.threshold` (the MSP's). No before/after state is sent.
 */
async function produceAuditEvents(trx: Transaction<Database>, now: number, pg: boolean): Promise<void> {
  const name = 'audit_log';
  const from = await watermark(trx, name, pg);
  if (from === null) {
    await setWatermark(trx, name, await maxId(trx, 'audit_log'), true);
    return;
  }
  const rows = await trx
    .selectFrom('audit_log')
    .select(['id', 'at', 'action', 'entity_id', 'msp_id', 'customer_id', 'admin_email', 'after_json'])
    .where('id', '>', from)
    .orderBy('id')
    .limit(PRODUCE_BATCH)
    .execute();
  if (rows.length === 0) return;
  for (const r of rows) {
    const audience: Audience | null =
      r.customer_id !== null ? { customerId: r.customer_id } : r.msp_id !== null ? { mspId: r.msp_id } : null;
    if (r.action === 'device.enrol' && r.customer_id !== null) {
      await enqueueEvent(
        trx,
        { customerId: r.customer_id },
        'device.enrolled',
        {
          user_id: r.customer_id,
          device_id: r.entity_id,
          enrolled_at: r.at,
        },
        now,
      );
    } else if (ADMIN_ACTIONS.has(r.action) && audience !== null) {
      await enqueueEvent(
        trx,
        audience,
        'admin.changed',
        {
          action: r.action,
          admin_id: r.entity_id,
          msp_id: r.msp_id,
          user_id: r.customer_id,
          by: r.admin_email,
          at: r.at,
        },
        now,
      );
    } else if (r.action === 'customer.create' && r.msp_id !== null && r.entity_id !== null) {
      const licence = await licenceCrossed(trx, r.msp_id, r.entity_id);
      for (const threshold of licence?.crossed ?? []) {
        await enqueueEvent(
          trx,
          { mspId: r.msp_id },
          'licence.threshold',
          {
            msp_id: r.msp_id,
            threshold_percent: threshold,
            customers: licence?.used,
            licence: licence?.limit,
            at: r.at,
          },
          now,
        );
      }
    } else if (r.action === 'feed.run' && r.after_json !== null && r.entity_id !== null) {
      const after = JSON.parse(r.after_json) as { status?: string; error?: string | null };
      if (after.status === 'error') {
        const feed = await trx
          .selectFrom('category_feeds')
          .select('name')
          .where('id', '=', r.entity_id)
          .executeTakeFirst();
        await enqueueEvent(
          trx,
          'all-msps',
          'feed.failed',
          {
            feed_id: r.entity_id,
            name: feed?.name ?? null,
            error: after.error ?? null,
            at: r.at,
          },
          now,
        );
      }
    }
  }
  await setWatermark(trx, name, Number(rows[rows.length - 1]?.id), false);
}

/** Scheduled reports sent (`report_archive` rows with status `sent` past the watermark) → `report.sent`. */
async function produceReportEvents(trx: Transaction<Database>, now: number, pg: boolean): Promise<void> {
  const name = 'report_archive';
  const from = await watermark(trx, name, pg);
  if (from === null) {
    await setWatermark(trx, name, await maxId(trx, 'report_archive'), true);
    return;
  }
  const rows = await trx
    .selectFrom('report_archive')
    .select([
      'id',
      'customer_id',
      'scheduled_report_id',
      'name',
      'type',
      'period_start',
      'period_end',
      'recipients',
      'status',
      'created_at',
    ])
    .where('id', '>', from)
    .orderBy('id')
    .limit(PRODUCE_BATCH)
    .execute();
  if (rows.length === 0) return;
  for (const r of rows) {
    if (r.status !== 'sent') continue;
    await enqueueEvent(
      trx,
      { customerId: r.customer_id },
      'report.sent',
      {
        user_id: r.customer_id,
        scheduled_report_id: r.scheduled_report_id,
        name: r.name,
        type: r.type,
        period_start: r.period_start,
        period_end: r.period_end,
        recipients: (JSON.parse(r.recipients) as string[]).length,
        sent_at: r.created_at,
      },
      now,
    );
  }
  await setWatermark(trx, name, Number(rows[rows.length - 1]?.id), false);
}

/**
 * Turns new log rows into webhook events (docs/api.md "Webhooks" "Events"), each producer in its
 * own transaction with its watermark, so a crash replays nothing twice and skips nothing.
 */
export async function produceEvents(deps: CoreDeps, now: number): Promise<void> {
  const { db, dialect } = deps.handle;
  const pg = dialect === 'postgres';
  await db.transaction().execute((trx) => produceSecurityHits(trx, now, pg));
  await db.transaction().execute((trx) => produceAuditEvents(trx, now, pg));
  await db.transaction().execute((trx) => produceReportEvents(trx, now, pg));
}
