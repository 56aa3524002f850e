import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  type CategoryLevelUpdate,
  categoriesBlockedAt,
  type DefaultPolicy,
  type DefaultPolicyQuery,
  type FilteringLevel,
  levelOfBlockedSet,
  Messages,
  type PolicyCategory,
  type PolicyCategoryWire,
  type PolicyUpdate,
  Role,
  Texts,
} from '@cordon/shared';
import type { Kysely } from 'kysely';
import { type CategoryRow, categoryRows } from '../categories/index.ts';
import type { Caller, CoreDeps } from '../context.ts';
import { mutate } from '../mutation/index.ts';
import { scopeOf } from '../tenancy/index.ts';
import * as templates from './default-repository.ts';
import * as repo from './repository.ts';
import {
  customerFor,
  DEFAULT_POLICY_NAME,
  getPolicy,
  getPolicyCategories,
  setPolicyCategories,
  updatePolicy,
} from './service.ts';

/**
 * Whose default policy a `/policies/default…` call means (spec-notes §7 "Default policy"; docs/api.md
 * "Default policies"): a customer's default policy (a real policy row), or a template — an MSP's
 * global default policy or the system's.
 */
type Target =
  | { readonly kind: 'customer'; readonly customerId: number; readonly policyId: number }
  | { readonly kind: 'template'; readonly row: templates.TemplateRow };

/**
 * Resolves the query of `/policies/default…` for `caller`:
 * - `msp_id`: that MSP's global default policy — a system admin any MSP's, an MSP admin only its own;
 * - `user_id`, or a customer admin: that customer's default policy (as {@link customerFor});
 * - neither, as a system admin: the system's global default policy.
 * @throws ApiError ERR_NOT_FOUND for a foreign or missing MSP or customer (a customer admin naming
 *   any MSP included); ERR_VALIDATION when an MSP admin names neither
 */
async function targetOf(
  deps: CoreDeps,
  caller: Caller,
  query: DefaultPolicyQuery,
  trx?: Kysely<Database>,
): Promise<Target> {
  const db = trx ?? deps.handle.db;
  if (query.msp_id !== undefined) {
    const row = await templates.getTemplate(db, scopeOf(caller), query.msp_id);
    if (!row) throw new ApiError('ERR_NOT_FOUND');
    return { kind: 'template', row };
  }
  if (query.user_id !== undefined || caller.role !== Role.System) {
    if (caller.role === Role.Msp && query.user_id === undefined) {
      throw new ApiError('ERR_VALIDATION', Messages.required, { user_id: Messages.required });
    }
    const customerId = await customerFor(deps, caller, query.user_id);
    const policyId = await repo.defaultPolicyId(db, scopeOf(caller), customerId);
    if (policyId === undefined) throw new ApiError('ERR_NOT_FOUND');
    return { kind: 'customer', customerId, policyId };
  }
  const row = await templates.getTemplate(db, scopeOf(caller), null);
  if (!row) throw new ApiError('ERR_NOT_FOUND');
  return { kind: 'template', row };
}

/** The blocked set of a template: a named level follows the categories' current levels, custom is stored. */
async function templateBlocked(
  db: Kysely<Database>,
  row: templates.TemplateRow,
  rows: CategoryRow[],
): Promise<number[]> {
  const level = row.level as FilteringLevel;
  return level === 'custom' ? templates.templateCategories(db, row.id) : categoriesBlockedAt(level, rows);
}

/** A template on the wire: a policy named 'Default' with no locations (`defaultPolicySchema`). */
function templateToWire(row: templates.TemplateRow): DefaultPolicy {
  return {
    id: row.id,
    user_id: null,
    msp_id: row.msp_id,
    scope: row.msp_id === null ? 'system' : 'msp',
    name: DEFAULT_POLICY_NAME,
    policyname: DEFAULT_POLICY_NAME,
    description: row.description,
    filtering_level: row.level as FilteringLevel,
    is_default: true,
    allow_unclassified: Number(row.allow_unclassified) === 1,
    safe_search: Number(row.safe_search) === 1,
    first_location: null,
    locations: [],
    extra_info: {},
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * `GET /policies/default?user_id=|msp_id=` (spec-notes §7): the default policy the query names (see
 * {@link targetOf}).
 * @throws ApiError as {@link targetOf}
 */
export async function getDefaultPolicy(
  deps: CoreDeps,
  caller: Caller,
  query: DefaultPolicyQuery,
): Promise<DefaultPolicy> {
  const target = await targetOf(deps, caller, query);
  if (target.kind === 'template') return templateToWire(target.row);
  return { ...(await getPolicy(deps, caller, target.policyId)), msp_id: null, scope: 'customer' };
}

/**
 * `PUT /policies/default?user_id=|msp_id=` (spec-notes §7). A customer's default policy is updated like any
 * policy (`PUT /policies/{id}`). A template takes `description`, `filtering_level`,
 * `allow_unclassified` and `safe_search`; its name stays 'Default'; a named level makes it follow that
 * level's current categories, `custom` keeps its set. Audit `default_policy.update` (before/after);
 * a template changes nothing the resolver serves, so no topic is published.
 * @throws ApiError as {@link targetOf}; ERR_VALIDATION naming `name` when a template is renamed
 */
export async function updateDefaultPolicy(
  deps: CoreDeps,
  caller: Caller,
  query: DefaultPolicyQuery,
  body: PolicyUpdate,
): Promise<DefaultPolicy> {
  const first = await targetOf(deps, caller, query);
  if (first.kind === 'customer') {
    return { ...(await updatePolicy(deps, caller, first.policyId, body)), msp_id: null, scope: 'customer' };
  }
  if (body.name !== undefined && body.name !== DEFAULT_POLICY_NAME) {
    const text = 'The name of a global default policy cannot be changed.';
    throw new ApiError('ERR_VALIDATION', text, { name: text });
  }
  const row = await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'default_policy.update', entity: 'default_policy' } },
    async (trx, note) => {
      const target = await targetOf(deps, caller, query, trx);
      if (target.kind !== 'template') throw new ApiError('ERR_NOT_FOUND');
      const before = target.row;
      const rows = await categoryRows(trx);
      const patch: Parameters<typeof templates.updateTemplate>[2] = {};
      if (body.description !== undefined) patch.description = body.description;
      if (body.allow_unclassified !== undefined) patch.allow_unclassified = body.allow_unclassified ? 1 : 0;
      if (body.safe_search !== undefined) patch.safe_search = body.safe_search ? 1 : 0;
      if (body.filtering_level !== undefined && body.filtering_level !== before.level) {
        // Custom starts from what the template blocked at its previous level.
        if (body.filtering_level === 'custom') {
          await templates.setTemplateCategories(trx, before.id, await templateBlocked(trx, before, rows));
        }
        patch.level = body.filtering_level;
      }
      await templates.updateTemplate(trx, before.id, patch, nowIso(deps.now()));
      const after = await templates.getTemplate(trx, scopeOf(caller), before.msp_id);
      note.entityId = before.id;
      note.mspId = before.msp_id;
      note.customerId = null;
      note.before = templateToWire(before);
      note.after = after ? templateToWire(after) : null;
      return after;
    },
  );
  if (!row) throw new ApiError('ERR_NOT_FOUND');
  return templateToWire(row);
}

/**
 * `GET /policies/default/categories?user_id=|msp_id=` (spec-notes §7): every taxonomy category with its
 * current level and `allowed: true` when the default policy BLOCKS it (inverted wire flag).
 * @throws ApiError as {@link targetOf}
 */
export async function getDefaultPolicyCategories(
  deps: CoreDeps,
  caller: Caller,
  query: DefaultPolicyQuery,
): Promise<PolicyCategory[]> {
  const target = await targetOf(deps, caller, query);
  if (target.kind === 'customer') return getPolicyCategories(deps, caller, target.policyId);
  const rows = await categoryRows(deps.handle.db);
  const blocked = new Set(await templateBlocked(deps.handle.db, target.row, rows));
  return rows.map((c) => ({ id: c.id, name: c.name, level: c.level, allowed: blocked.has(c.id) }));
}

/**
 * `POST|PUT /policies/default/categories?user_id=|msp_id=` (spec-notes §7): applies each entry
 * (`allowed: true` = block); categories not sent keep their state; the level becomes the named level
 * whose set equals the result, else `custom`. Audit `default_policy.categories.update` for a
 * template (`policy.categories.update` for a customer's default policy).
 * @throws ApiError as {@link targetOf}; ERR_VALIDATION naming `[i].id` for an id outside the taxonomy
 */
export async function setDefaultPolicyCategories(
  deps: CoreDeps,
  caller: Caller,
  query: DefaultPolicyQuery,
  body: readonly PolicyCategoryWire[],
): Promise<PolicyCategory[]> {
  const first = await targetOf(deps, caller, query);
  if (first.kind === 'customer') return setPolicyCategories(deps, caller, first.policyId, body);
  await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'default_policy.categories.update', entity: 'default_policy' } },
    async (trx, note) => {
      const target = await targetOf(deps, caller, query, trx);
      if (target.kind !== 'template') throw new ApiError('ERR_NOT_FOUND');
      const rows = await categoryRows(trx);
      const known = new Set(rows.map((r) => r.id));
      const fields: Record<string, string> = {};
      body.forEach((entry, i) => {
        if (!known.has(entry.id)) fields[`${i}.id`] = Texts.unknownCategory;
      });
      if (Object.keys(fields).length > 0) throw new ApiError('ERR_VALIDATION', Texts.unknownCategory, fields);
      const before = await templateBlocked(trx, target.row, rows);
      const blocked = new Set(before);
      for (const entry of body) {
        if (entry.allowed) blocked.add(entry.id);
        else blocked.delete(entry.id);
      }
      const ids = [...blocked].sort((a, b) => a - b);
      const level = levelOfBlockedSet(ids, rows);
      await templates.setTemplateCategories(trx, target.row.id, ids);
      await templates.updateTemplate(trx, target.row.id, { level }, nowIso(deps.now()));
      note.entityId = target.row.id;
      note.mspId = target.row.msp_id;
      note.customerId = null;
      note.before = { filtering_level: target.row.level, blocked: before };
      note.after = { filtering_level: level, blocked: ids };
    },
  );
  return getDefaultPolicyCategories(deps, caller, query);
}

/**
 * `GET /policies/default/categories/{id}?user_id=|msp_id=` (spec-notes §7): one category of the default
 * policy, with its current protection level.
 * @throws ApiError as {@link targetOf}; ERR_NOT_FOUND for an id outside the taxonomy
 */
export async function getDefaultPolicyCategory(
  deps: CoreDeps,
  caller: Caller,
  query: DefaultPolicyQuery,
  categoryId: number,
): Promise<PolicyCategory> {
  const category = (await getDefaultPolicyCategories(deps, caller, query)).find((c) => c.id === categoryId);
  if (!category) throw new ApiError('ERR_NOT_FOUND');
  return category;
}

/**
 * `PUT /policies/default/categories/{id}` (system admins; spec-notes §4 and §7): sets which protection
 * levels block category `id` — `L` (Low up), `M` (Moderate up), `H` (High only) or null (only a
 * custom policy). Existing policies keep their blocked sets: the edit applies to policies (and
 * customers, MSPs) created afterwards, and to templates at a named level, which follow the levels.
 * Audit `category.level.update` with the level before and after; publishes `categories`.
 * @returns the category as the system's default policy sees it
 * @throws ApiError ERR_FORBIDDEN for anyone but a system admin; ERR_NOT_FOUND for an unknown id
 */
export async function setCategoryLevel(
  deps: CoreDeps,
  caller: Caller,
  categoryId: number,
  body: CategoryLevelUpdate,
): Promise<PolicyCategory> {
  if (caller.role !== Role.System) throw new ApiError('ERR_FORBIDDEN');
  await mutate(
    deps,
    caller,
    { topics: ['categories'], audit: { action: 'category.level.update', entity: 'category' } },
    async (trx, note) => {
      const before = (await categoryRows(trx)).find((c) => c.id === categoryId);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      await templates.setCategoryLevel(trx, categoryId, body.level);
      note.entityId = categoryId;
      note.mspId = null;
      note.customerId = null;
      note.before = { id: categoryId, name: before.name, level: before.level };
      note.after = { id: categoryId, name: before.name, level: body.level };
    },
  );
  return getDefaultPolicyCategory(deps, caller, {}, categoryId);
}

/**
 * The global default policy of a new MSP, a copy of the system's (spec: "new MSPs take the system's"),
 * written in the transaction (`trx`) of the mutation that creates the MSP.
 * @returns the template's id
 */
export async function createMspDefaultPolicy(trx: Kysely<Database>, mspId: number, at: string): Promise<number> {
  const system = await templates.getTemplate(trx, { kind: 'all' }, null);
  const id = await templates.insertTemplate(
    trx,
    mspId,
    system
      ? {
          description: system.description,
          level: system.level,
          allow_unclassified: system.allow_unclassified,
          safe_search: system.safe_search,
        }
      : { description: '', level: 'low', allow_unclassified: 1, safe_search: 0 },
    at,
  );
  if (system && system.level === 'custom') {
    await templates.setTemplateCategories(trx, id, await templates.templateCategories(trx, system.id));
  }
  return id;
}

/**
 * Writes the default policy 'Default' of a new customer of MSP `mspId` from the MSP's global default
 * policy (else the system's): its description, level, "allow unclassified" and safe search; a named
 * level blocks that level's categories under the current levels (spec-notes §4), custom copies the
 * template's set. `level`, when given, overrides the template's level. Runs in the transaction
 * (`trx`) of the mutation that creates the customer.
 * @returns the policy's id
 */
export async function createDefaultPolicy(
  trx: Kysely<Database>,
  customerId: number,
  mspId: number,
  at: string,
  level?: FilteringLevel,
): Promise<number> {
  const template = await templates.templateForNewCustomer(trx, mspId);
  const rows = await categoryRows(trx);
  const effective = level ?? (template?.level as FilteringLevel | undefined) ?? 'low';
  const policyId = await repo.insertPolicy(
    trx,
    customerId,
    {
      name: DEFAULT_POLICY_NAME,
      description: template?.description ?? '',
      level: effective,
      is_default: true,
      allow_unclassified: template ? Number(template.allow_unclassified) === 1 : true,
      safe_search: template ? Number(template.safe_search) === 1 : false,
    },
    at,
  );
  const blocked =
    level === undefined && template && template.level === 'custom'
      ? await templates.templateCategories(trx, template.id)
      : categoriesBlockedAt(effective, rows);
  await repo.setBlockedCategories(trx, policyId, customerId, blocked);
  return policyId;
}
