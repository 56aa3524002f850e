import { type Database, executePrepared } from '@cordon/db';
import { type Customer, type Dependants, type ListQuery, parseLicenceLimit } from '@cordon/shared';
import type { Kysely } from 'kysely';
import { dependantsOf, kindOf } from '../dependants/index.ts';
import { containsText, type ListSort, listPage } from '../paging/index.ts';
import {
  customerIdsInScope,
  customerInScope,
  defaultPolicyOf,
  ownedInScope,
  type TenantScope,
} from '../tenancy/index.ts';

/** The customer list's order (docs/api.md "Conventions"); `name` is the account name. */
const SORT: ListSort<string> = {
  columns: {
    name: 'customers.account_name',
    accountName: 'customers.account_name',
    id: 'customers.id',
    timezone: 'customers.timezone',
    created_at: 'customers.created_at',
    msp_name: 'msps.name',
  },
  text: ['customers.account_name', 'msps.name'],
  tiebreak: 'customers.id',
};

/**
 * The customers of `scope` with their MSP's name: every column of {@link Customer} but the default
 * policy. The MSP is a left join, which finds the same row as an inner one (`customers.msp_id` is
 * NOT NULL and references `msps.id`, ON DELETE CASCADE) and lets PostgreSQL drop the join where no
 * MSP column is read: from the list's count of every row (bench/README.md "API reads").
 */
function customerRows(db: Kysely<Database>, scope: TenantScope) {
  return db
    .selectFrom('customers')
    .leftJoin('msps', 'msps.id', 'customers.msp_id')
    .where(customerInScope(scope))
    .select((eb) => [
      'customers.id',
      'customers.account_name as accountName',
      'customers.uuid_str',
      'customers.timezone',
      'customers.msp_id',
      eb.ref('msps.name').$notNull().as('msp_name'),
      'customers.created_at',
    ]);
}

function customerQuery(db: Kysely<Database>, scope: TenantScope) {
  return customerRows(db, scope).select((eb) =>
    defaultPolicyOf(eb.ref('customers.id')).select('dp.id').as('default_policy_id'),
  );
}

type CustomerRow = Omit<Customer, 'default_policy_id'> & { default_policy_id: number | null };
const toCustomer = (r: CustomerRow): Customer => ({ ...r, default_policy_id: r.default_policy_id ?? null });

/**
 * A page of customers within `scope`, optionally of one MSP, filtered by account name.
 * @throws ApiError 400 for an unknown sortkey
 */
export async function listCustomers(
  db: Kysely<Database>,
  scope: TenantScope,
  query: ListQuery & { msp_id?: number | undefined },
): Promise<{ data: Customer[]; total: number }> {
  let base = customerRows(db, scope);
  if (query.msp_id !== undefined) base = base.where('customers.msp_id', '=', query.msp_id);
  if (query.filter) base = base.where(containsText('customers.account_name', query.filter));
  // Prepared on PostgreSQL: planning was a third of the statement's cost; the plan (the name index
  // read in order, or the MSP's customers sorted) does not depend on which tenant asks.
  const { rows, total } = await listPage(base, query, SORT, db);
  // The default policies of the page's customers only: a subquery per row would run for every
  // customer the sort reads (1,000 for a system admin; bench/README.md "API reads").
  const defaults = new Map<number, number>();
  if (rows.length > 0) {
    const found = await db
      .selectFrom('policies')
      .select(['customer_id', (eb) => eb.fn.min('id').as('id')])
      .where(
        'customer_id',
        'in',
        rows.map((r) => r.id),
      )
      .where('is_default', '=', 1)
      .groupBy('customer_id')
      .execute();
    for (const f of found) defaults.set(f.customer_id, Number(f.id));
  }
  return { data: rows.map((r) => toCustomer({ ...r, default_policy_id: defaults.get(r.id) ?? null })), total };
}

/** Customer `id` within `scope`, or undefined. */
export async function getCustomer(db: Kysely<Database>, scope: TenantScope, id: number): Promise<Customer | undefined> {
  // Most customer routes ask it first (the tenancy guard): prepared, so it is planned once per connection.
  const [row] = await executePrepared(db, customerQuery(db, scope).where('customers.id', '=', id));
  return row ? toCustomer(row) : undefined;
}

/** True when another customer of MSP `mspId` (not `exceptId`) has this account name. */
export async function customerNameTaken(
  db: Kysely<Database>,
  mspId: number,
  name: string,
  exceptId?: number,
): Promise<boolean> {
  let q = db.selectFrom('customers').select('id').where('msp_id', '=', mspId).where('account_name', '=', name);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Inserts a customer of MSP `mspId`; returns its id. The caller has checked the MSP is in scope. */
export async function insertCustomer(
  db: Kysely<Database>,
  values: { msp_id: number; account_name: string; uuid_str: string; timezone: string },
  at: string,
): Promise<number> {
  const row = await db
    .insertInto('customers')
    .values({ ...values, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Updates customer `id` within `scope`; false when not visible. */
export async function updateCustomer(
  db: Kysely<Database>,
  scope: TenantScope,
  id: number,
  patch: Partial<{ account_name: string; timezone: string }>,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('customers')
    .set({ ...patch, updated_at: at })
    .where('customers.id', '=', id)
    .where(customerInScope(scope))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes customer `id` within `scope` (policies, locations, admins go by FK cascade); false when not visible. */
export async function deleteCustomer(db: Kysely<Database>, scope: TenantScope, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('customers')
    .where('customers.id', '=', id)
    .where(customerInScope(scope))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Licence use of MSP `mspId` (issue 11): its customers, and its licence as a customer limit when the
 * licence is a whole number ('' or any other text: no limit). Callers pass an MSP already checked
 * visible.
 */
export async function licenceUse(db: Kysely<Database>, mspId: number): Promise<{ used: number; limit: number | null }> {
  const msp = await db.selectFrom('msps').select('license').where('id', '=', mspId).executeTakeFirst();
  const row = await db
    .selectFrom('customers')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('msp_id', '=', mspId)
    .executeTakeFirstOrThrow();
  return { used: Number(row.n), limit: parseLicenceLimit(msp?.license ?? '') };
}

/**
 * What a delete of customer `id` takes with it (docs/api.md "Deletes of things in use"): its
 * `locations`, `devices`, `policies` (the default one left out: every customer has it), `groups`,
 * `users` (internal) and `admins` (by e-mail), each tenant-scoped in SQL.
 */
export async function customerDependants(db: Kysely<Database>, scope: TenantScope, id: number): Promise<Dependants> {
  return dependantsOf({
    locations: await kindOf(
      db
        .selectFrom('locations')
        .where('locations.customer_id', '=', id)
        .where(ownedInScope('locations.customer_id', scope)),
      'locations.name',
    ),
    devices: await kindOf(
      db.selectFrom('devices').where('devices.customer_id', '=', id).where(ownedInScope('devices.customer_id', scope)),
      'devices.name',
    ),
    policies: await kindOf(
      db
        .selectFrom('policies')
        .where('policies.customer_id', '=', id)
        .where('policies.is_default', '=', 0)
        .where(ownedInScope('policies.customer_id', scope)),
      'policies.name',
    ),
    groups: await kindOf(
      db
        .selectFrom('user_groups')
        .where('user_groups.customer_id', '=', id)
        .where(ownedInScope('user_groups.customer_id', scope)),
      'user_groups.name',
    ),
    users: await kindOf(
      db
        .selectFrom('internal_users')
        .where('internal_users.customer_id', '=', id)
        .where(ownedInScope('internal_users.customer_id', scope)),
      'internal_users.name',
    ),
    admins: await kindOf(
      db
        .selectFrom('admins')
        .where('admins.customer_id', '=', id)
        .where('admins.customer_id', 'in', customerIdsInScope(scope)),
      'admins.email',
    ),
  });
}
