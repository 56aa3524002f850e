import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import { OUTBOUND_FAILURE, type OutboundOptions } from '@cordon/shared/outbound';
import type { Kysely, Selectable } from 'kysely';
import { type CoreDeps, OPERATOR, openStored } from '../context.ts';
import { sendMail } from '../mail/index.ts';
import { mutate } from '../mutation/index.ts';
import type { WorkerJob, WorkerLog } from '../worker/index.ts';
import { type PostLimits, type PostOutcome, postWebhook } from './post.ts';
import { produceEvents } from './produce.ts';
import { disableReason, RETRY_DELAYS_MS, retryDelayMs } from './schedule.ts';
import { signPayload } from './signing.ts';

type EndpointRow = Selectable<Database['webhook_endpoints']>;

/** The most deliveries one run attempts. */
export const DELIVERIES_PER_RUN = 200;
/** How many deliveries are attempted at once. */
const CONCURRENCY = 8;
/** How long a claimed delivery is held by the worker attempting it, ms (longer than a POST may take). */
const CLAIM_MS = 60_000;
/** A delivery gives up (status `failed`) after this many attempts. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 2;

/** What a delivery run may be given instead of the defaults (tests). */
export interface DeliveryOptions {
  /** Sends one attempt; default {@link postWebhook} through the outbound guard. */
  post?: (url: string, body: string, headers: Record<string, string>) => Promise<PostOutcome>;
  /** The jitter's random source, in [0, 1). */
  random?: () => number;
  limits?: PostLimits;
  outbound?: OutboundOptions;
  log?: WorkerLog;
}

/** The outcome of one attempt of {@link runDeliveries}. */
export interface AttemptOutcome {
  deliveryId: number;
  endpointId: number;
  ok: boolean;
  status: number | null;
}

/**
 * Attempts every due delivery (`pending`, `next_attempt_at` ≤ `now`) of enabled endpoints, at most
 * {@link DELIVERIES_PER_RUN}, each claimed by a conditional update first (another worker skips it).
 * Each POST carries the Standard Webhooks headers `webhook-id` (the event id), `webhook-timestamp`
 * (seconds) and `webhook-signature` ({@link signPayload}). A 2xx marks it `delivered` and clears the
 * endpoint's failure run; anything else counts one failure on the endpoint, and every pending
 * delivery of that endpoint waits {@link retryDelayMs} (the endpoint's backoff). An endpoint whose
 * failures reach the disable rule ({@link disableReason}) is disabled with its reason, its pending
 * deliveries marked `failed`, and the audit row `webhook.disable` (the console shows the reason).
 * A delivery that reached {@link MAX_ATTEMPTS} is `failed`.
 */
export async function runDeliveries(
  deps: CoreDeps,
  now: number,
  opts: DeliveryOptions = {},
): Promise<AttemptOutcome[]> {
  const db = deps.handle.db;
  const due = await db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
    .select([
      'webhook_deliveries.id as id',
      'webhook_deliveries.endpoint_id as endpointId',
      'webhook_deliveries.next_attempt_at as nextAt',
    ])
    .where('webhook_deliveries.status', '=', 'pending')
    .where('webhook_deliveries.next_attempt_at', '<=', now)
    .where('webhook_endpoints.enabled', '=', 1)
    .orderBy('webhook_deliveries.next_attempt_at')
    .orderBy('webhook_deliveries.id')
    .limit(DELIVERIES_PER_RUN)
    .execute();
  const outcomes: AttemptOutcome[] = [];
  // One endpoint's deliveries go one after another (in order; a failure pauses the rest).
  const byEndpoint = new Map<number, typeof due>();
  for (const d of due) byEndpoint.set(d.endpointId, [...(byEndpoint.get(d.endpointId) ?? []), d]);
  const queues = [...byEndpoint.values()];
  const worker = async () => {
    for (let queue = queues.shift(); queue; queue = queues.shift()) {
      for (const d of queue) {
        const outcome = await attemptOne(deps, db, d.id, d.endpointId, Number(d.nextAt), now, opts);
        if (!outcome) continue;
        outcomes.push(outcome);
        if (!outcome.ok) break;
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return outcomes;
}

async function attemptOne(
  deps: CoreDeps,
  db: Kysely<Database>,
  id: number,
  endpointId: number,
  nextAt: number,
  now: number,
  opts: DeliveryOptions,
): Promise<AttemptOutcome | null> {
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now + CLAIM_MS })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '=', nextAt)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return null;
  const delivery = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  const endpoint = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId).executeTakeFirst();
  if (!delivery || !endpoint || endpoint.enabled !== 1) return null;
  const timestamp = Math.floor(now / 1000);
  let outcome: PostOutcome;
  try {
    const secret = openStored(deps, endpoint.secret);
    const headers = {
      'webhook-id': delivery.event_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signPayload(secret, delivery.event_id, timestamp, delivery.payload),
    };
    const post = opts.post ?? ((url, body, h) => postWebhook(url, body, h, opts.limits ?? {}, opts.outbound ?? {}));
    outcome = await post(endpoint.url, delivery.payload, headers);
  } catch (err) {
    // Not the receiver's doing (e.g. the secret could not be opened): the detail is the operator's.
    outcome = {
      ok: false,
      status: null,
      error: OUTBOUND_FAILURE,
      detail: err instanceof Error ? err.message : String(err),
    };
  }
  const attempts = delivery.attempts + 1;
  const at = deps.now();
  if (outcome.ok) {
    await db
      .updateTable('webhook_deliveries')
      .set({
        status: 'delivered',
        attempts,
        last_status_code: outcome.status,
        last_error: null,
        delivered_at: nowIso(at),
      })
      .where('id', '=', id)
      .execute();
    await db
      .updateTable('webhook_endpoints')
      .set({ consecutive_failures: 0, failing_since: null })
      .where('id', '=', endpointId)
      .execute();
    // The endpoint answers again: what waited on its backoff is due now.
    await db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: now })
      .where('endpoint_id', '=', endpointId)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '>', now + CLAIM_MS)
      .execute();
  } else {
    const failures = endpoint.consecutive_failures + 1;
    const failingSince = endpoint.failing_since ? Date.parse(endpoint.failing_since) : now;
    const retryAt = now + retryDelayMs(failures, opts.random);
    await db
      .updateTable('webhook_deliveries')
      .set({
        status: attempts >= MAX_ATTEMPTS ? 'failed' : 'pending',
        attempts,
        next_attempt_at: retryAt,
        last_status_code: outcome.status,
        last_error: outcome.error,
      })
      .where('id', '=', id)
      .execute();
    await db
      .updateTable('webhook_endpoints')
      .set({ consecutive_failures: failures, failing_since: nowIso(failingSince) })
      .where('id', '=', endpointId)
      .execute();
    // The endpoint's backoff holds its other pending deliveries too.
    await db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: retryAt })
      .where('endpoint_id', '=', endpointId)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<', retryAt)
      .execute();
    const reason = disableReason(failures, failingSince, now);
    if (reason !== null) {
      await disableEndpoint(deps, endpoint, reason);
      await mailDisableNotice(deps, endpoint, reason, opts.log);
    }
    opts.log?.warn(
      { webhook: endpointId, delivery: id, status: outcome.status, detail: outcome.detail, failures },
      'webhook delivery failed',
    );
  }
  return { deliveryId: id, endpointId, ok: outcome.ok, status: outcome.status };
}

/** Disables `endpoint` for `reason`: its pending deliveries fail; audit `webhook.disable` by the system. */
async function disableEndpoint(deps: CoreDeps, endpoint: EndpointRow, reason: string): Promise<void> {
  await mutate(
    deps,
    OPERATOR,
    { topics: [], audit: { action: 'webhook.disable', entity: 'webhook' } },
    async (trx, note) => {
      const at = nowIso(deps.now());
      await trx
        .updateTable('webhook_endpoints')
        .set({ enabled: 0, disabled_at: at, disabled_reason: reason, updated_at: at })
        .where('id', '=', endpoint.id)
        .execute();
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', last_error: `endpoint disabled: ${reason}` })
        .where('endpoint_id', '=', endpoint.id)
        .where('status', '=', 'pending')
        .execute();
      Object.assign(note, {
        entityId: endpoint.id,
        mspId: endpoint.msp_id,
        customerId: endpoint.customer_id,
        after: { enabled: false, disabled_reason: reason, url: endpoint.url },
      });
    },
  );
}

/**
 * Mails the owner's admins (the customer's, else the MSP's) that `endpoint` was disabled and why,
 * through the MSP's mail settings (else the system's). Best effort: without mail settings, or when
 * the server refuses, the audit row and the console's banner remain the notice (issue 26).
 */
async function mailDisableNotice(
  deps: CoreDeps,
  endpoint: EndpointRow,
  reason: string,
  log?: WorkerLog,
): Promise<void> {
  const admins = await deps.handle.db
    .selectFrom('admins')
    .select('email')
    .where((eb) =>
      endpoint.customer_id === null
        ? eb.and([eb('msp_id', '=', endpoint.msp_id), eb('customer_id', 'is', null), eb('role', '=', 3)])
        : eb.and([eb('customer_id', '=', endpoint.customer_id), eb('role', '=', 4)]),
    )
    .execute();
  if (admins.length === 0) return;
  try {
    await sendMail(
      deps,
      { mspId: endpoint.msp_id },
      {
        to: admins.map((a) => a.email),
        subject: `Webhook endpoint disabled: ${endpoint.url}`,
        text: `Cordon stopped delivering events to ${endpoint.url}: ${reason}.\nFix the receiver, then switch the endpoint on again on the Webhooks page; its delivery log shows each attempt.`,
      },
    );
  } catch (err) {
    log?.warn(
      { webhook: endpoint.id, err: err instanceof Error ? err.message : String(err) },
      'webhook disable notice not mailed',
    );
  }
}

/** How long delivered and failed deliveries stay in the log, days. */
export const DELIVERY_RETENTION_DAYS = 30;

/**
 * Deletes the delivered and failed deliveries created more than {@link DELIVERY_RETENTION_DAYS}
 * before `now` (epoch ms); pending ones stay whatever their age.
 * @returns how many were deleted
 */
export async function pruneDeliveries(deps: CoreDeps, now: number): Promise<number> {
  const result = await deps.handle.db
    .deleteFrom('webhook_deliveries')
    .where('status', '!=', 'pending')
    .where('created_at', '<', nowIso(now - DELIVERY_RETENTION_DAYS * 86_400_000))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * The worker job of webhooks (docs/architecture.md "Worker"; docs/api.md "Webhooks"): on every tick
 * it turns new query-log, audit and report rows into events ({@link produceEvents}) and attempts
 * the due deliveries ({@link runDeliveries}), then prunes the old log ({@link pruneDeliveries}). Idempotent per period: events are produced past
 * watermarks moved in the same transaction, and each delivery is claimed before its attempt.
 */
export function webhooksJob(opts: DeliveryOptions = {}): WorkerJob {
  return {
    name: 'webhooks.deliver',
    intervalMs: 1000,
    run: async ({ deps, now, log }) => {
      await produceEvents(deps, now);
      await runDeliveries(deps, now, { log, ...opts });
      await pruneDeliveries(deps, now);
    },
  };
}
