import type { Database, DefaultPoliciesTable } from '@cordon/db';
import { type Expression, expressionBuilder, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { TenantScope } from '../tenancy/index.ts';

/** A global default policy row (the template of an MSP, or of the system when `msp_id` is null). */
export type TemplateRow = Selectable<DefaultPoliciesTable>;

/** Whose template: an MSP's (its id) or the system's (null). */
export type TemplateOwner = number | null;

/**
 * The templates `scope` may see, in SQL (docs/architecture.md "Tenancy"): a system admin every one,
 * an MSP admin only its own MSP's (never the system's), nobody else any.
 */
function templateInScope(scope: TenantScope): Expression<SqlBool> {
  const eb = expressionBuilder<Database, 'default_policies'>();
  if (scope.kind === 'all') return eb.lit(true);
  if (scope.kind === 'msp') return eb('default_policies.msp_id', '=', scope.mspId);
  return eb.lit(false);
}

/** The template of `owner` within `scope`, or undefined (missing or not visible). */
export async function getTemplate(
  db: Kysely<Database>,
  scope: TenantScope,
  owner: TemplateOwner,
): Promise<TemplateRow | undefined> {
  return db
    .selectFrom('default_policies')
    .selectAll()
    .where((eb) => (owner === null ? eb('msp_id', 'is', null) : eb('msp_id', '=', owner)))
    .where(templateInScope(scope))
    .executeTakeFirst();
}

/** The template a new customer of MSP `mspId` copies: the MSP's, else the system's (no scope: internal). */
export async function templateForNewCustomer(db: Kysely<Database>, mspId: number): Promise<TemplateRow | undefined> {
  const rows = await db
    .selectFrom('default_policies')
    .selectAll()
    .where((eb) => eb.or([eb('msp_id', '=', mspId), eb('msp_id', 'is', null)]))
    .execute();
  return rows.find((r) => r.msp_id === mspId) ?? rows.find((r) => r.msp_id === null);
}

/** The category ids template `id` blocks, ascending. */
export async function templateCategories(db: Kysely<Database>, id: number): Promise<number[]> {
  const rows = await db
    .selectFrom('default_policy_categories')
    .select('category_id')
    .where('default_policy_id', '=', id)
    .orderBy('category_id')
    .execute();
  return rows.map((r) => r.category_id);
}

/** Inserts the template of `owner`; returns its id. */
export async function insertTemplate(
  db: Kysely<Database>,
  owner: TemplateOwner,
  values: Pick<TemplateRow, 'description' | 'level' | 'allow_unclassified' | 'safe_search'>,
  at: string,
): Promise<number> {
  const row = await db
    .insertInto('default_policies')
    .values({ msp_id: owner, ...values, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Updates template `id` (already read within the caller's scope). */
export async function updateTemplate(
  db: Kysely<Database>,
  id: number,
  patch: Partial<Pick<TemplateRow, 'description' | 'level' | 'allow_unclassified' | 'safe_search'>>,
  at: string,
): Promise<void> {
  await db
    .updateTable('default_policies')
    .set({ ...patch, updated_at: at })
    .where('id', '=', id)
    .execute();
}

/** Replaces the blocked set of template `id` (already read within the caller's scope). */
export async function setTemplateCategories(db: Kysely<Database>, id: number, ids: readonly number[]): Promise<void> {
  await db.deleteFrom('default_policy_categories').where('default_policy_id', '=', id).execute();
  if (ids.length === 0) return;
  await db
    .insertInto('default_policy_categories')
    .values(ids.map((category_id) => ({ default_policy_id: id, category_id })))
    .execute();
}

/** Sets category `id`'s protection level (deployment-wide). */
export async function setCategoryLevel(db: Kysely<Database>, id: number, level: string | null): Promise<void> {
  await db.updateTable('categories').set({ level }).where('id', '=', id).execute();
}
