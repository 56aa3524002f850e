import type { Database, RecategorizeRequestsTable } from '@cordon/db';
import { bumpCategoryStamp, nowIso } from '@cordon/db';
import {
  ApiError,
  categoryById,
  normalizeDomain,
  type RecategorizeCreate,
  type RecategorizeListQuery,
  type RecategorizeRequest,
  type RecategorizeReview,
  type RecategorizeStatus,
  Role,
} from '@cordon/shared';
import type { Kysely, Selectable } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { mutate } from '../mutation/index.ts';
import { containsText, type ListSort, listPage } from '../paging/index.ts';

type Row = Selectable<RecategorizeRequestsTable>;

/** The `category_domains.source` of approved overrides (it wins: the domain's other rows are removed). */
export const OVERRIDE_SOURCE = 'override';

const SORT: ListSort<string> = {
  columns: {
    created_at: 'recategorize_requests.id',
    domain: 'recategorize_requests.domain',
    status: 'recategorize_requests.status',
  },
  text: ['recategorize_requests.domain'],
  tiebreak: 'recategorize_requests.id',
};

const named = (id: number) => ({ id, name: categoryById(id)?.name ?? `#${id}` });

/** Every suffix of `domain` at a label boundary (the rows the category index matches for it). */
function suffixes(domain: string): string[] {
  const labels = domain.split('.');
  return labels.map((_, i) => labels.slice(i).join('.')).filter((s) => s !== '');
}

/** The categories `domain` has now (every source, its parents' too), sorted by id. */
async function currentCategories(db: Kysely<Database>, domain: string): Promise<number[]> {
  const rows = await db
    .selectFrom('category_domains')
    .select('category_id')
    .distinct()
    .where('domain', 'in', suffixes(domain))
    .execute();
  return rows.map((r) => r.category_id).sort((a, b) => a - b);
}

async function toWire(db: Kysely<Database>, row: Row): Promise<RecategorizeRequest> {
  return {
    id: row.id,
    domain: row.domain,
    category: named(row.category_id),
    current_categories: (await currentCategories(db, row.domain)).map(named),
    comment: row.comment,
    status: row.status as RecategorizeStatus,
    requested_by: row.requested_email,
    msp_id: row.msp_id,
    customer_id: row.customer_id,
    created_at: row.created_at,
    reviewed_at: row.reviewed_at,
  };
}

/** The requests `caller` sees, in SQL: all (system), its MSP's and its customers' (MSP), its own (customer). */
function scoped(db: Kysely<Database>, caller: Caller) {
  const base = db.selectFrom('recategorize_requests').selectAll();
  if (caller.role === Role.System) return base;
  if (caller.role === Role.Msp && caller.mspId !== null) return base.where('msp_id', '=', caller.mspId);
  if (caller.role === Role.Customer && caller.customerId !== null) {
    return base.where('customer_id', '=', caller.customerId);
  }
  return base.where((eb) => eb.lit(false));
}

/**
 * `POST /tools/recategorize` (spec-notes §7): queues a request for the system admin's review, recording
 * the asking admin and tenant. A pending request for the same domain and category by the same
 * tenant is answered again rather than queued twice. Audit `recategorize.request`.
 */
export async function requestRecategorization(
  deps: CoreDeps,
  caller: Caller,
  body: RecategorizeCreate,
): Promise<RecategorizeRequest> {
  const domain = normalizeDomain(body.domain).replace(/\.$/, '');
  const at = nowIso(deps.now());
  const mspId = caller.role === Role.System ? null : caller.mspId;
  const customerId = caller.role === Role.Customer ? caller.customerId : null;
  return mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'recategorize.request', entity: 'recategorize_request' } },
    async (trx, note) => {
      const same = await trx
        .selectFrom('recategorize_requests')
        .selectAll()
        .where('domain', '=', domain)
        .where('category_id', '=', body.category_id)
        .where('status', '=', 'pending')
        .where((eb) => (mspId === null ? eb('msp_id', 'is', null) : eb('msp_id', '=', mspId)))
        .where((eb) => (customerId === null ? eb('customer_id', 'is', null) : eb('customer_id', '=', customerId)))
        .executeTakeFirst();
      const row =
        same ??
        (await trx
          .insertInto('recategorize_requests')
          .values({
            domain,
            category_id: body.category_id,
            comment: body.comment,
            requested_by: caller.adminId,
            requested_email: caller.email ?? 'operator',
            msp_id: mspId,
            customer_id: customerId,
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow());
      Object.assign(note, { entityId: row.id, mspId, customerId, after: row });
      return toWire(trx, row);
    },
  );
}

/** `GET /tools/recategorize`: one page of the requests the caller sees, newest first by default, filtered by status and domain. */
export async function listRecategorizations(
  deps: CoreDeps,
  caller: Caller,
  query: RecategorizeListQuery,
): Promise<{ data: RecategorizeRequest[]; total: number }> {
  const db = deps.handle.db;
  let base = scoped(db, caller);
  if (query.status) base = base.where('status', '=', query.status);
  if (query.filter) base = base.where(containsText('recategorize_requests.domain', query.filter));
  const { rows, total } = await listPage(base, query, SORT);
  return { data: await Promise.all(rows.map((r) => toWire(db, r))), total };
}

/**
 * `POST /tools/recategorize/{id}/review` (system admin): rejects a pending request, or approves it —
 * the domain's category becomes the one asked for, over every feed: its `category_domains` rows of
 * other sources are removed and one row of source `override` is written, recorded in
 * `category_overrides`; `category_overrides` is published, so the resolver's override layer answers
 * with it within a second, without rebuilding its category index (docs/architecture.md "Data plane"). Audit `recategorize.approve` / `recategorize.reject`.
 * @throws ApiError ERR_NOT_FOUND (no such request), ERR_CONFLICT (already reviewed)
 */
export async function reviewRecategorization(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  body: RecategorizeReview,
): Promise<RecategorizeRequest> {
  if (caller.role !== Role.System) throw new ApiError('ERR_FORBIDDEN');
  const approve = body.action === 'approve';
  const at = nowIso(deps.now());
  return mutate(
    deps,
    caller,
    {
      topics: approve ? ['category_overrides'] : [],
      audit: { action: approve ? 'recategorize.approve' : 'recategorize.reject', entity: 'recategorize_request' },
    },
    async (trx, note) => {
      const before = await trx.selectFrom('recategorize_requests').selectAll().where('id', '=', id).executeTakeFirst();
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (before.status !== 'pending') {
        const message = `This request was already ${before.status}.`;
        throw new ApiError('ERR_CONFLICT', message);
      }
      await trx
        .updateTable('recategorize_requests')
        .set({ status: approve ? 'approved' : 'rejected', reviewed_at: at, updated_at: at })
        .where('id', '=', id)
        .execute();
      if (approve) {
        await trx.deleteFrom('category_domains').where('domain', '=', before.domain).execute();
        await trx
          .insertInto('category_domains')
          .values({ domain: before.domain, category_id: before.category_id, source: OVERRIDE_SOURCE })
          .execute();
        await bumpCategoryStamp(trx, deps.now());
        await trx.deleteFrom('category_overrides').where('domain', '=', before.domain).execute();
        await trx
          .insertInto('category_overrides')
          .values({ domain: before.domain, category_id: before.category_id, request_id: id, created_at: at })
          .execute();
      }
      const after = await trx
        .selectFrom('recategorize_requests')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      Object.assign(note, { entityId: id, mspId: before.msp_id, customerId: before.customer_id, before, after });
      return toWire(trx, after);
    },
  );
}
