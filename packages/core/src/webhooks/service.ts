import { randomUUID } from 'node:crypto';
import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  Role,
  Texts,
  WEBHOOK_PAYLOAD_VERSION,
  type Webhook,
  type WebhookCreate,
  type WebhookDelivery,
  type WebhookOwnerQuery,
  type WebhookUpdate,
  type WebhookWithSecret,
} from '@cordon/shared';
import { type Expression, expressionBuilder, type Kysely, type Selectable, type SqlBool, sql } from 'kysely';
import { type Caller, type CoreDeps, sealStored } from '../context.ts';
import { mutate } from '../mutation/index.ts';
import { customerTenant, mspVisible, scopeOf, type TenantScope } from '../tenancy/index.ts';
import { newSecret } from './signing.ts';

type EndpointRow = Selectable<Database['webhook_endpoints']>;
type DeliveryRow = Selectable<Database['webhook_deliveries']>;

const endpoints = expressionBuilder<Database, 'webhook_endpoints'>();

/**
 * A WHERE condition limiting `webhook_endpoints` to what `scope` may see (docs/architecture.md
 * "Tenancy"): an MSP admin its MSP's endpoints and its customers'; a customer admin its customer's.
 */
function endpointInScope(scope: TenantScope): Expression<SqlBool> {
  switch (scope.kind) {
    case 'all':
      return sql<SqlBool>`1 = 1`;
    case 'msp':
      return endpoints('webhook_endpoints.msp_id', '=', scope.mspId);
    case 'customer':
      return endpoints('webhook_endpoints.customer_id', '=', scope.customerId);
    default:
      return sql<SqlBool>`1 = 0`;
  }
}

/** The owner of an endpoint: an MSP (customerId null) or a customer of MSP `mspId`. */
export interface WebhookOwner {
  mspId: number;
  customerId: number | null;
}

/**
 * Whose webhooks a list or creation means (docs/api.md "Webhooks"): `user_id` → that customer,
 * `msp_id` → that MSP, neither → the caller's own customer (customer admin) or MSP (MSP admin);
 * checked visible in SQL.
 * @throws ApiError ERR_NOT_FOUND for a missing or foreign owner, or a system admin naming none
 */
async function ownerOf(db: Kysely<Database>, caller: Caller, query: WebhookOwnerQuery): Promise<WebhookOwner> {
  const scope = scopeOf(caller);
  // A customer admin has no MSP-level endpoints.
  if (caller.role === Role.Customer && query.msp_id !== undefined) throw new ApiError('ERR_NOT_FOUND');
  const customerId = query.user_id ?? (caller.role === Role.Customer ? caller.customerId : null);
  if (customerId !== null && customerId !== undefined) {
    const tenant = await customerTenant(db, scope, customerId);
    if (!tenant) throw new ApiError('ERR_NOT_FOUND');
    return { mspId: tenant.mspId, customerId: tenant.id };
  }
  const mspId = query.msp_id ?? (caller.role === Role.Msp ? caller.mspId : null);
  if (mspId === null || mspId === undefined || caller.role === Role.Customer) throw new ApiError('ERR_NOT_FOUND');
  if (!(await mspVisible(db, scope, caller.role, mspId))) throw new ApiError('ERR_NOT_FOUND');
  return { mspId, customerId: null };
}

function toWire(row: EndpointRow): Webhook {
  return {
    id: row.id,
    msp_id: row.msp_id,
    user_id: row.customer_id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    enabled: row.enabled === 1,
    disabled_at: row.disabled_at,
    disabled_reason: row.disabled_reason,
    consecutive_failures: row.consecutive_failures,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** An audit view of an endpoint: never its secret. */
function auditView(row: EndpointRow | undefined) {
  if (!row) return null;
  const { secret: _secret, ...rest } = row;
  return rest;
}

/** The delivery as the log shows it (`next_attempt_at` only while pending). */
export function deliveryToWire(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    event_id: row.event_id,
    type: row.type,
    status: row.status as WebhookDelivery['status'],
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? new Date(Number(row.next_attempt_at)).toISOString() : null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
    payload: row.payload,
  };
}

/**
 * Refuses an `http:` URL whose host is not a loopback literal or `localhost` (issue 26: HTTP only
 * on loopback, for development; the delivery checks the resolved address again).
 * @throws ApiError ERR_VALIDATION (field `url`)
 */
function checkUrl(url: string): void {
  const parsed = new URL(url);
  if (parsed.protocol === 'https:') return;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)) return;
  const message = Texts.httpsUrl;
  throw new ApiError('ERR_VALIDATION', message, { url: message });
}

async function findEndpoint(db: Kysely<Database>, scope: TenantScope, id: number): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where(endpointInScope(scope))
    .where('webhook_endpoints.id', '=', id)
    .executeTakeFirst();
}

/**
 * `GET /webhooks?msp_id=&user_id=`: the owner's endpoints, oldest first.
 * @throws ApiError as {@link ownerOf}
 */
export async function listWebhooks(
  deps: CoreDeps,
  caller: Caller,
  query: WebhookOwnerQuery,
): Promise<{ data: Webhook[]; total: number }> {
  const db = deps.handle.db;
  const owner = await ownerOf(db, caller, query);
  const rows = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where(endpointInScope(scopeOf(caller)))
    .where('msp_id', '=', owner.mspId)
    .where((eb) =>
      owner.customerId === null ? eb('customer_id', 'is', null) : eb('customer_id', '=', owner.customerId),
    )
    .orderBy('id')
    .execute();
  return { data: rows.map(toWire), total: rows.length };
}

/**
 * `GET /webhooks/{id}`.
 * @throws ApiError ERR_NOT_FOUND when missing or another tenant's
 */
export async function getWebhook(deps: CoreDeps, caller: Caller, id: number): Promise<Webhook> {
  const row = await findEndpoint(deps.handle.db, scopeOf(caller), id);
  if (!row) throw new ApiError('ERR_NOT_FOUND');
  return toWire(row);
}

/**
 * `POST /webhooks?msp_id=&user_id=`: registers an endpoint; its secret (`whsec_…`) is sealed at rest
 * and returned this once. Audit `webhook.create` (never the secret).
 * @throws ApiError as {@link ownerOf}; ERR_VALIDATION for an `http:` URL off loopback
 */
export async function createWebhook(
  deps: CoreDeps,
  caller: Caller,
  query: WebhookOwnerQuery,
  body: WebhookCreate,
): Promise<WebhookWithSecret> {
  checkUrl(body.url);
  const secret = newSecret();
  const row = await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'webhook.create', entity: 'webhook' } },
    async (trx, note) => {
      const owner = await ownerOf(trx, caller, query);
      const at = nowIso(deps.now());
      const created = await trx
        .insertInto('webhook_endpoints')
        .values({
          msp_id: owner.mspId,
          customer_id: owner.customerId,
          url: body.url,
          description: body.description,
          secret: sealStored(deps, secret),
          events: JSON.stringify(body.events),
          enabled: body.enabled ? 1 : 0,
          disabled_at: null,
          disabled_reason: null,
          failing_since: null,
          created_at: at,
          updated_at: at,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      Object.assign(note, {
        entityId: created.id,
        mspId: owner.mspId,
        customerId: owner.customerId,
        after: auditView(created),
      });
      return created;
    },
  );
  return { ...toWire(row), secret };
}

/**
 * `PATCH /webhooks/{id}`: changes URL, description, events or enablement. Enabling an endpoint
 * clears its disablement and failure count. Audit `webhook.update`.
 * @throws ApiError ERR_NOT_FOUND when missing or another tenant's; ERR_VALIDATION as {@link createWebhook}
 */
export async function updateWebhook(deps: CoreDeps, caller: Caller, id: number, body: WebhookUpdate): Promise<Webhook> {
  if (body.url !== undefined) checkUrl(body.url);
  return mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'webhook.update', entity: 'webhook' } },
    async (trx, note) => {
      const before = await findEndpoint(trx, scopeOf(caller), id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      const enabling = body.enabled === true && before.enabled === 0;
      await trx
        .updateTable('webhook_endpoints')
        .set({
          ...(body.url !== undefined ? { url: body.url } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.events !== undefined ? { events: JSON.stringify(body.events) } : {}),
          ...(body.enabled !== undefined ? { enabled: body.enabled ? 1 : 0 } : {}),
          ...(enabling
            ? { disabled_at: null, disabled_reason: null, consecutive_failures: 0, failing_since: null }
            : {}),
          updated_at: nowIso(deps.now()),
        })
        .where(endpointInScope(scopeOf(caller)))
        .where('id', '=', id)
        .execute();
      const after = (await findEndpoint(trx, scopeOf(caller), id)) as EndpointRow;
      Object.assign(note, {
        entityId: id,
        mspId: after.msp_id,
        customerId: after.customer_id,
        before: auditView(before),
        after: auditView(after),
      });
      return toWire(after);
    },
  );
}

/**
 * `DELETE /webhooks/{id}`: the endpoint and its delivery log. Audit `webhook.delete`.
 * @throws ApiError ERR_NOT_FOUND when missing or another tenant's
 */
export async function deleteWebhook(deps: CoreDeps, caller: Caller, id: number): Promise<{ deleted: true }> {
  await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'webhook.delete', entity: 'webhook' } },
    async (trx, note) => {
      const before = await findEndpoint(trx, scopeOf(caller), id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
      await trx
        .deleteFrom('webhook_endpoints')
        .where(endpointInScope(scopeOf(caller)))
        .where('id', '=', id)
        .execute();
      Object.assign(note, {
        entityId: id,
        mspId: before.msp_id,
        customerId: before.customer_id,
        before: auditView(before),
      });
    },
  );
  return { deleted: true };
}

/**
 * `POST /webhooks/{id}/secret`: a new signing secret, returned this once; the old one stops
 * signing at once. Audit `webhook.rotate_secret` (never the secret).
 * @throws ApiError ERR_NOT_FOUND when missing or another tenant's
 */
export async function rotateWebhookSecret(deps: CoreDeps, caller: Caller, id: number): Promise<WebhookWithSecret> {
  const secret = newSecret();
  const row = await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'webhook.rotate_secret', entity: 'webhook' } },
    async (trx, note) => {
      const before = await findEndpoint(trx, scopeOf(caller), id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      await trx
        .updateTable('webhook_endpoints')
        .set({ secret: sealStored(deps, secret), updated_at: nowIso(deps.now()) })
        .where(endpointInScope(scopeOf(caller)))
        .where('id', '=', id)
        .execute();
      Object.assign(note, { entityId: id, mspId: before.msp_id, customerId: before.customer_id });
      return (await findEndpoint(trx, scopeOf(caller), id)) as EndpointRow;
    },
  );
  return { ...toWire(row), secret };
}

/**
 * The JSON body of an event (docs/api.md "Webhooks" "Payload"): `version`, `id`, `type`,
 * `created_at` (ISO) and `data`.
 */
export function eventBody(id: string, type: string, at: number, data: Record<string, unknown>): string {
  return JSON.stringify({ version: WEBHOOK_PAYLOAD_VERSION, id, type, created_at: nowIso(at), data });
}

/** A new event id: `evt_` + a random UUID without dashes. */
export function newEventId(): string {
  return `evt_${randomUUID().replaceAll('-', '')}`;
}

/**
 * `POST /webhooks/{id}/test`: queues a `ping` event to the endpoint, due now (the worker delivers
 * it). Audit `webhook.test`.
 * @throws ApiError ERR_NOT_FOUND when missing or another tenant's; ERR_CONFLICT when it is disabled
 */
export async function testWebhook(deps: CoreDeps, caller: Caller, id: number): Promise<WebhookDelivery> {
  return mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'webhook.test', entity: 'webhook' } },
    async (trx, note) => {
      const endpoint = await findEndpoint(trx, scopeOf(caller), id);
      if (!endpoint) throw new ApiError('ERR_NOT_FOUND');
      if (endpoint.enabled !== 1) throw new ApiError('ERR_CONFLICT', 'Enable the endpoint first.');
      const now = deps.now();
      const eventId = newEventId();
      const row = await trx
        .insertInto('webhook_deliveries')
        .values({
          endpoint_id: id,
          event_id: eventId,
          type: 'ping',
          payload: eventBody(eventId, 'ping', now, { webhook_id: id }),
          status: 'pending',
          next_attempt_at: now,
          last_status_code: null,
          last_error: null,
          created_at: nowIso(now),
          delivered_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      Object.assign(note, { entityId: id, mspId: endpoint.msp_id, customerId: endpoint.customer_id });
      return deliveryToWire(row);
    },
  );
}

/**
 * `GET /webhooks/{id}/deliveries`: the endpoint's delivery log, newest first.
 * @throws ApiError ERR_NOT_FOUND when the endpoint is missing or another tenant's
 */
export async function listDeliveries(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  query: { limit: number; offset: number },
): Promise<{ data: WebhookDelivery[]; total: number }> {
  const db = deps.handle.db;
  const endpoint = await findEndpoint(db, scopeOf(caller), id);
  if (!endpoint) throw new ApiError('ERR_NOT_FOUND');
  const rows = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpoint.id)
    .orderBy('id', 'desc')
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  const count = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('endpoint_id', '=', endpoint.id)
    .executeTakeFirstOrThrow();
  return { data: rows.map(deliveryToWire), total: Number(count.n) };
}

/**
 * `POST /webhooks/{id}/deliveries/{deliveryId}/redeliver`: the delivery is pending again, due now,
 * with the same event id and payload (its attempts keep counting). Audit `webhook.redeliver`.
 * @throws ApiError ERR_NOT_FOUND when the endpoint or delivery is missing or another tenant's;
 *   ERR_CONFLICT when the endpoint is disabled
 */
export async function redeliver(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  deliveryId: number,
): Promise<WebhookDelivery> {
  return mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'webhook.redeliver', entity: 'webhook' } },
    async (trx, note) => {
      const endpoint = await findEndpoint(trx, scopeOf(caller), id);
      if (!endpoint) throw new ApiError('ERR_NOT_FOUND');
      const before = await trx
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpoint.id)
        .where('id', '=', deliveryId)
        .executeTakeFirst();
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (endpoint.enabled !== 1) throw new ApiError('ERR_CONFLICT', 'Enable the endpoint first.');
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: deps.now() })
        .where('endpoint_id', '=', endpoint.id)
        .where('id', '=', deliveryId)
        .execute();
      Object.assign(note, {
        entityId: id,
        mspId: endpoint.msp_id,
        customerId: endpoint.customer_id,
        after: { delivery_id: deliveryId, event_id: before.event_id },
      });
      return deliveryToWire({ ...before, status: 'pending', next_attempt_at: deps.now() });
    },
  );
}
