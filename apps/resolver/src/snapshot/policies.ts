import type { Database, DatabaseHandle } from '@cordon/db';
import { type CompiledPolicy, compilePolicyRow } from '@cordon/policy';
import { type Kysely, sql } from 'kysely';
import {
  big,
  changedKeys,
  chunks,
  collectDigests,
  digestColumns,
  INCREMENTAL_LIMIT,
  type SnapshotPart,
  tableDigest,
} from './part.ts';

/** The policies part: every policy compiled, and each customer's default. */
export interface PoliciesSnapshot {
  readonly byId: ReadonlyMap<number, CompiledPolicy>;
  /** customer id → id of its default policy (`is_default = 1`). */
  readonly defaultOf: ReadonlyMap<number, number>;
  /** customer id → digest of its policy rows, to find what changed on the next reload. */
  readonly digests: ReadonlyMap<number, string>;
  /** Customers read by the load that built this value (every one on a full load). */
  readonly reloadedCustomers: number;
}

async function digests(db: Kysely<Database>): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const p = digestColumns(sql`${big(sql.ref('id'))} * 8 + safe_search * 4 + is_default * 2 + allow_unclassified`);
  collectDigests(
    out,
    await db
      .selectFrom('policies')
      .select([sql<number>`customer_id`.as('key'), p.n.as('n'), p.s.as('s'), p.q.as('q')])
      .groupBy('customer_id')
      .execute(),
  );
  const c = digestColumns(sql`${big(sql.ref('policy_id'))} * 64 + category_id`);
  collectDigests(
    out,
    await db
      .selectFrom('policy_categories')
      .select([sql<number>`customer_id`.as('key'), c.n.as('n'), c.s.as('s'), c.q.as('q')])
      .groupBy('customer_id')
      .execute(),
  );
  return out;
}

/** Reads and compiles the policies of `customers` (null: all), in id order. */
async function read(db: Kysely<Database>, customers: number[] | null) {
  const policies: {
    id: number;
    customer_id: number;
    is_default: number;
    allow_unclassified: number;
    safe_search: number;
  }[] = [];
  const blocked: { policy_id: number; category_id: number }[] = [];
  for (const ids of customers === null ? [null] : chunks(customers)) {
    let pq = db
      .selectFrom('policies')
      .select(['id', 'customer_id', 'is_default', 'allow_unclassified', 'safe_search'])
      .orderBy('id');
    let cq = db
      .selectFrom('policy_categories')
      .select(['policy_id', 'category_id'])
      .orderBy('policy_id')
      .orderBy('category_id');
    if (ids !== null) {
      pq = pq.where('customer_id', 'in', ids);
      cq = cq.where('customer_id', 'in', ids);
    }
    policies.push(...(await pq.execute()));
    blocked.push(...(await cq.execute()));
  }
  const blockedBy = new Map<number, number[]>();
  for (const r of blocked) {
    let list = blockedBy.get(r.policy_id);
    if (!list) {
      list = [];
      blockedBy.set(r.policy_id, list);
    }
    list.push(r.category_id);
  }
  return policies.map((p) => ({
    compiled: compilePolicyRow(p, blockedBy.get(p.id) ?? []),
    isDefault: Number(p.is_default) === 1,
  }));
}

/**
 * The policies part (topics `policies`, `tenants`: deleting a customer deletes its policies).
 * Incremental: one digest row per customer (count, sum and sum of squares of the encoded policy and
 * blocked-category rows) finds the customers whose rows changed, and only theirs are read again and
 * recompiled; the rest of the previous value is kept. More than {@link INCREMENTAL_LIMIT} changed
 * customers, or no previous value, reads everything. Read in one transaction (a consistent view).
 */
export const policiesPart: SnapshotPart<PoliciesSnapshot> = {
  name: 'policies',
  incremental: true,
  topics: ['policies', 'tenants'],
  empty: () => ({ byId: new Map(), defaultOf: new Map(), digests: new Map(), reloadedCustomers: 0 }),
  load: (handle: DatabaseHandle, _logger, previous) =>
    handle.db
      .transaction()
      .setAccessMode('read only')
      .execute(async (trx) => {
        const now = await digests(trx);
        const changed = previous ? changedKeys(previous.digests, now) : null;
        if (previous && changed && changed.size === 0) return previous;
        const partial = previous !== null && changed !== null && changed.size <= INCREMENTAL_LIMIT;
        const rows = await read(trx, partial ? [...changed] : null);
        const byId = new Map<number, CompiledPolicy>();
        const defaultOf = new Map<number, number>();
        if (partial) {
          for (const [id, p] of previous.byId) if (!changed.has(p.customerId)) byId.set(id, p);
          for (const [customer, id] of previous.defaultOf) if (!changed.has(customer)) defaultOf.set(customer, id);
        }
        for (const r of rows) {
          byId.set(r.compiled.id, r.compiled);
          if (r.isDefault) defaultOf.set(r.compiled.customerId, r.compiled.id);
        }
        return { byId, defaultOf, digests: now, reloadedCustomers: partial ? changed.size : now.size };
      }),
  digest: (handle) =>
    tableDigest(handle, [
      {
        table: 'policies',
        rows: [
          sql`(${big(sql.ref('id'))} * 8 + safe_search * 4 + is_default * 2 + allow_unclassified) * 1048576 + customer_id`,
        ],
        stamps: ['updated_at'],
      },
      { table: 'policy_categories', rows: [sql`${big(sql.ref('policy_id'))} * 1024 + category_id`] },
    ]),
};
