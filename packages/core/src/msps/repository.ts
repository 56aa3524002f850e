import type { Database } from '@cordon/db';
import type { Dependants, ListQuery, Msp, Role } from '@cordon/shared';
import type { Kysely } from 'kysely';
import { dependantsOf, kindOf } from '../dependants/index.ts';
import { containsAnyText, type ListSort, listPage } from '../paging/index.ts';
import { mspInScope, type TenantScope } from '../tenancy/index.ts';

/** The MSP list's order (docs/api.md "Conventions"). */
const SORT: ListSort<string> = {
  columns: {
    name: 'msps.name',
    id: 'msps.id',
    company_name: 'msps.company_name',
    license: 'msps.license',
    timezone: 'msps.timezone',
    created_at: 'msps.created_at',
  },
  text: ['msps.name'],
  tiebreak: 'msps.id',
};

function mspQuery(db: Kysely<Database>, scope: TenantScope, role: Role) {
  return db
    .selectFrom('msps')
    .where(mspInScope(scope, role))
    .select((eb) => [
      'msps.id',
      'msps.name',
      'msps.company_name',
      'msps.license',
      'msps.timezone',
      'msps.created_at',
      eb
        .selectFrom('customers')
        .whereRef('customers.msp_id', '=', 'msps.id')
        .select(eb.fn.countAll<number>().as('n'))
        .as('customers_count'),
    ]);
}

type MspRow = Omit<Msp, 'customers_count'> & { customers_count: number | string | null };
const toMsp = (r: MspRow): Msp => ({ ...r, customers_count: Number(r.customers_count ?? 0) });

/**
 * A page of MSPs in scope, sorted by a whitelisted key, filtered by name or company (case-insensitive).
 * @throws ApiError 400 for an unknown sortkey
 */
export async function listMsps(
  db: Kysely<Database>,
  scope: TenantScope,
  role: Role,
  query: ListQuery,
): Promise<{ data: Msp[]; total: number }> {
  let base = mspQuery(db, scope, role);
  if (query.filter) base = base.where(containsAnyText(['msps.name', 'msps.company_name'], query.filter));
  const { rows, total } = await listPage(base, query, SORT);
  return { data: rows.map(toMsp), total };
}

/** The MSP `id` if in scope, else undefined. */
export async function getMsp(
  db: Kysely<Database>,
  scope: TenantScope,
  role: Role,
  id: number,
): Promise<Msp | undefined> {
  const row = await mspQuery(db, scope, role).where('msps.id', '=', id).executeTakeFirst();
  return row ? toMsp(row) : undefined;
}

/** True when another MSP (not `exceptId`) has this name. */
export async function mspNameTaken(db: Kysely<Database>, name: string, exceptId?: number): Promise<boolean> {
  let q = db.selectFrom('msps').select('id').where('name', '=', name);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Inserts an MSP; returns its id. */
export async function insertMsp(
  db: Kysely<Database>,
  values: { name: string; company_name: string; license: string; timezone: string },
  at: string,
): Promise<number> {
  const row = await db
    .insertInto('msps')
    .values({ ...values, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Updates MSP `id` in scope; returns false when it is not visible. */
export async function updateMsp(
  db: Kysely<Database>,
  scope: TenantScope,
  role: Role,
  id: number,
  patch: Partial<{ name: string; company_name: string; license: string; timezone: string }>,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('msps')
    .set({ ...patch, updated_at: at })
    .where('id', '=', id)
    .where(mspInScope(scope, role))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes MSP `id` in scope with its customers, admins, policies and locations (FK cascade). */
export async function deleteMsp(db: Kysely<Database>, scope: TenantScope, role: Role, id: number): Promise<boolean> {
  const result = await db.deleteFrom('msps').where('id', '=', id).where(mspInScope(scope, role)).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * What a delete of MSP `id` takes with it (docs/api.md "Deletes of things in use"): its `customers`
 * (by account name) and `admins` (its own, by e-mail), limited to what `scope` may see.
 */
export async function mspDependants(
  db: Kysely<Database>,
  scope: TenantScope,
  role: Role,
  id: number,
): Promise<Dependants> {
  const visible = db.selectFrom('msps').select('msps.id').where(mspInScope(scope, role));
  return dependantsOf({
    customers: await kindOf(
      db.selectFrom('customers').where('customers.msp_id', '=', id).where('customers.msp_id', 'in', visible),
      'customers.account_name',
    ),
    admins: await kindOf(
      db
        .selectFrom('admins')
        .where('admins.msp_id', '=', id)
        .where('admins.customer_id', 'is', null)
        .where('admins.msp_id', 'in', visible),
      'admins.email',
    ),
  });
}
