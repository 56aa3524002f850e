import type { Database, GlobalDomainsTable, PolicyDomainsTable } from '@cordon/db';
import type { DomainAction, DomainEntry, DomainListKind, ListQuery, Role } from '@cordon/shared';
import { type Expression, type Kysely, type Selectable, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { containsText, type ListSort, listPage } from '../paging/index.ts';
import { customerInScope, mspInScope, ownedInScope, type TenantScope } from '../tenancy/index.ts';

/**
 * Whose list a call is about, resolved and checked against the caller's tenant by the service:
 * a customer policy's lists, or an MSP's global lists (`mspId`), or the system's (`mspId` null).
 */
export type ListOwner =
  | {
      readonly kind: 'policy';
      readonly policyId: number;
      readonly policyName: string;
      readonly customerId: number;
      readonly mspId: number;
    }
  | { readonly kind: 'global'; readonly mspId: number | null };

/** The caller's tenant as repositories filter by it. */
export interface ListScope {
  readonly scope: TenantScope;
  readonly role: Role;
}

/** The fields of an entry a write sets. */
export interface EntryFields {
  domain: string;
  include_subdomains: boolean;
  comment: string;
  log_requests: boolean;
}

type EntryRow = Selectable<PolicyDomainsTable> | Selectable<GlobalDomainsTable>;

const COLUMNS = [
  'id',
  'domain',
  'action',
  'include_subdomains',
  'comment',
  'log_requests',
  'created_at',
  'updated_at',
] as const;

/** The entry list's order (docs/api.md "Conventions"): `name` (the default) and `domain` sort by name. */
const SORT: ListSort<string> = {
  columns: {
    name: 'domain',
    domain: 'domain',
    object: 'action',
    created_at: 'created_at',
    updated_at: 'updated_at',
    id: 'id',
  },
  text: [],
  tiebreak: 'id',
};

/** The wire form of a row (spec-notes §3 "Domain list entry"). */
function toEntry(owner: ListOwner, r: Pick<EntryRow, (typeof COLUMNS)[number]>): DomainEntry {
  return {
    id: r.id,
    domain: r.domain,
    object: r.action as DomainAction,
    include_subdomains: Number(r.include_subdomains) === 1,
    comment: r.comment,
    log_requests: Number(r.log_requests) === 1,
    policyid: owner.kind === 'policy' ? owner.policyId : null,
    policyname: owner.kind === 'policy' ? owner.policyName : null,
    user_id: owner.kind === 'policy' ? owner.customerId : null,
    msp_id: owner.mspId,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** `global_domains` rows of `owner` within the caller's scope: an MSP's rows only when the MSP is visible. */
function globalOwnerPredicate(db: Kysely<Database>, at: ListScope, mspId: number | null): Expression<SqlBool> {
  return mspId === null
    ? sql<SqlBool>`global_domains.msp_id is null and ${at.scope.kind === 'all' ? sql`1 = 1` : sql`1 = 0`}`
    : sql<SqlBool>`global_domains.msp_id = ${mspId} and global_domains.msp_id in (${db
        .selectFrom('msps')
        .select('msps.id')
        .where(mspInScope(at.scope, at.role))})`;
}

/** The selection both list tables share. */
type EntryQuery = SelectQueryBuilder<Database, 'policy_domains', Pick<EntryRow, (typeof COLUMNS)[number]>>;

/**
 * Rows of one owner's lists (`kind`: one list or both), tenant-scoped in SQL. The two tables share
 * their entry columns, so the global query is typed as the policy one and callers refer to columns
 * unqualified (`id`, `domain`).
 */
function entriesOf(db: Kysely<Database>, at: ListScope, owner: ListOwner, kind: DomainListKind): EntryQuery {
  let q: EntryQuery;
  if (owner.kind === 'policy') {
    q = db
      .selectFrom('policy_domains')
      .select(COLUMNS)
      .where('policy_domains.policy_id', '=', owner.policyId)
      .where(ownedInScope('policy_domains.customer_id', at.scope));
  } else {
    q = db
      .selectFrom('global_domains')
      .select(COLUMNS)
      .where(globalOwnerPredicate(db, at, owner.mspId)) as unknown as EntryQuery;
  }
  return kind === 'all' ? q : q.where('action', '=', kind);
}

/** A page of `owner`'s `kind` list; `filter` matches the domain. @throws ApiError 400 for an unknown sortkey */
export async function listEntries(
  db: Kysely<Database>,
  at: ListScope,
  owner: ListOwner,
  kind: DomainListKind,
  query: ListQuery,
): Promise<{ data: DomainEntry[]; total: number }> {
  const q = entriesOf(db, at, owner, kind);
  const base = query.filter ? q.where(containsText('domain', query.filter)) : q;
  const { rows, total } = await listPage(base, query, SORT);
  return { data: rows.map((r) => toEntry(owner, r)), total };
}

/** Every entry of `owner`'s `kind` list, by domain then id (exports). */
export async function allEntries(
  db: Kysely<Database>,
  at: ListScope,
  owner: ListOwner,
  kind: DomainListKind,
): Promise<DomainEntry[]> {
  const rows = await entriesOf(db, at, owner, kind).orderBy('domain').orderBy('action').orderBy('id').execute();
  return rows.map((r) => toEntry(owner, r));
}

/** Entry `id` of `owner`'s `kind` list, or undefined (missing, another list, another tenant). */
export async function getEntry(
  db: Kysely<Database>,
  at: ListScope,
  owner: ListOwner,
  kind: DomainListKind,
  id: number,
): Promise<DomainEntry | undefined> {
  const row = await entriesOf(db, at, owner, kind).where('id', '=', id).executeTakeFirst();
  return row ? toEntry(owner, row) : undefined;
}

/**
 * The number of entries in `owner`'s `action` list: a range of the owner's unique index
 * (migration 0005), never the rows themselves. The owner was resolved within the caller's scope.
 */
export async function countEntries(db: Kysely<Database>, owner: ListOwner, action: DomainAction): Promise<number> {
  const row =
    owner.kind === 'policy'
      ? await db
          .selectFrom('policy_domains')
          .select(sql<number | string>`count(*)`.as('n'))
          .where('policy_id', '=', owner.policyId)
          .where('action', '=', action)
          .executeTakeFirstOrThrow()
      : await db
          .selectFrom('global_domains')
          .select(sql<number | string>`count(*)`.as('n'))
          .where(sql<number>`coalesce(msp_id, 0)`, '=', owner.mspId ?? 0)
          .where('action', '=', action)
          .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The `settings` key of an owner's change stamp, which the resolver's lists part reads to find the
 * owners whose entries changed (docs/architecture.md "Data plane"): `lists:policy:<id>`,
 * `lists:msp:<id>`, `lists:system`.
 */
export function stampKey(owner: ListOwner): string {
  if (owner.kind === 'policy') return `lists:policy:${owner.policyId}`;
  return owner.mspId === null ? 'lists:system' : `lists:msp:${owner.mspId}`;
}

/** Writes a fresh change stamp for `owner` (call in the transaction of the change). */
export async function stampOwner(db: Kysely<Database>, owner: ListOwner, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key: stampKey(owner), value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

/**
 * Inserts entries into `owner`'s `action` list in chunks. With `skipListed`, an entry whose domain
 * is already in the list (or earlier in `entries`) is left out by the unique index (`on conflict do
 * nothing`) instead of failing the insert.
 * @returns the new ids, in order
 * @throws the unique-index violation (mutate's 409) for a listed domain without `skipListed`
 */
export async function insertEntries(
  db: Kysely<Database>,
  owner: ListOwner,
  action: DomainAction,
  entries: readonly EntryFields[],
  at: string,
  skipListed = false,
): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < entries.length; i += 200) {
    const values = entries.slice(i, i + 200).map((e) => ({
      domain: e.domain,
      action,
      include_subdomains: e.include_subdomains ? 1 : 0,
      comment: e.comment,
      log_requests: e.log_requests ? 1 : 0,
      created_at: at,
      updated_at: at,
    }));
    const rows =
      owner.kind === 'policy'
        ? await db
            .insertInto('policy_domains')
            .values(values.map((v) => ({ ...v, policy_id: owner.policyId, customer_id: owner.customerId })))
            .$if(skipListed, (q) => q.onConflict((oc) => oc.doNothing()))
            .returning('id')
            .execute()
        : await db
            .insertInto('global_domains')
            .values(values.map((v) => ({ ...v, msp_id: owner.mspId })))
            .$if(skipListed, (q) => q.onConflict((oc) => oc.doNothing()))
            .returning('id')
            .execute();
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

/** Updates entry `id` of `owner` (tenant-scoped in SQL). @returns false when no row matched */
export async function updateEntry(
  db: Kysely<Database>,
  at: ListScope,
  owner: ListOwner,
  id: number,
  patch: Partial<EntryFields>,
  now: string,
): Promise<boolean> {
  const set = {
    ...(patch.domain !== undefined ? { domain: patch.domain } : {}),
    ...(patch.include_subdomains !== undefined ? { include_subdomains: patch.include_subdomains ? 1 : 0 } : {}),
    ...(patch.comment !== undefined ? { comment: patch.comment } : {}),
    ...(patch.log_requests !== undefined ? { log_requests: patch.log_requests ? 1 : 0 } : {}),
    updated_at: now,
  };
  const res =
    owner.kind === 'policy'
      ? await db
          .updateTable('policy_domains')
          .set(set)
          .where('id', '=', id)
          .where('policy_id', '=', owner.policyId)
          .where(ownedInScope('policy_domains.customer_id', at.scope))
          .executeTakeFirst()
      : await db
          .updateTable('global_domains')
          .set(set)
          .where('id', '=', id)
          .where(globalOwnerPredicate(db, at, owner.mspId))
          .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/**
 * Deletes entries of `owner` (tenant-scoped in SQL): entry `id`, or with `id` null every entry of
 * the `action` list. @returns the number of rows deleted
 */
export async function deleteEntries(
  db: Kysely<Database>,
  at: ListScope,
  owner: ListOwner,
  target: { id: number } | { action: DomainAction },
): Promise<number> {
  const res =
    owner.kind === 'policy'
      ? await db
          .deleteFrom('policy_domains')
          .where('policy_id', '=', owner.policyId)
          .where(ownedInScope('policy_domains.customer_id', at.scope))
          .where('id' in target ? 'id' : 'action', '=', 'id' in target ? target.id : target.action)
          .executeTakeFirst()
      : await db
          .deleteFrom('global_domains')
          .where(globalOwnerPredicate(db, at, owner.mspId))
          .where('id' in target ? 'id' : 'action', '=', 'id' in target ? target.id : target.action)
          .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/**
 * The policy `policyId` within the caller's scope with its customer and MSP, or undefined
 * (missing or another tenant's).
 */
export async function policyOwner(
  db: Kysely<Database>,
  at: ListScope,
  policyId: number,
): Promise<Extract<ListOwner, { kind: 'policy' }> | undefined> {
  const row = await db
    .selectFrom('policies')
    .innerJoin('customers', 'customers.id', 'policies.customer_id')
    .select(['policies.id', 'policies.name', 'policies.customer_id', 'customers.msp_id'])
    .where('policies.id', '=', policyId)
    .where(customerInScope(at.scope))
    .executeTakeFirst();
  return row
    ? { kind: 'policy', policyId: row.id, policyName: row.name, customerId: row.customer_id, mspId: row.msp_id }
    : undefined;
}
