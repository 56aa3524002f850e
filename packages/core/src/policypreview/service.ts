import type { Database } from '@cordon/db';
import { type PolicyPreview, type PolicyPreviewBody, statsRange, type TimeRange } from '@cordon/shared';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { getCustomer } from '../customers/index.ts';
import { getPolicy } from '../policies/index.ts';
import { customerInScope, scopeOf } from '../tenancy/index.ts';

const HOUR_MS = 3_600_000;
/** Names per `in (…)` list: well under SQLite's historic 999 parameters. */
const CHUNK = 500;
/** Names in the answer's top list. */
const TOP = 10;

/** The period a preview counts, and its roll-up hours `[fromHour, toHour)` (epoch ms, UTC hour starts). */
export interface PreviewRange extends TimeRange {
  fromHour: number;
  toHour: number;
}

/**
 * The preview's period (docs/categories.md "Preview"): the Stats routes' `7days` in `timeZone` as of
 * `now` (six whole local days and today), with its roll-up hours floored to the UTC hour as the Stats
 * routes read them (docs/api.md "Stats": exact for whole-hour offsets).
 */
export function previewRange(timeZone: string, now: number): PreviewRange {
  const range = statsRange('7days', timeZone, now);
  const floor = (t: number) => t - (((t % HOUR_MS) + HOUR_MS) % HOUR_MS);
  return { ...range, fromHour: floor(range.from), toHour: floor(range.to) };
}

/** `name` and each parent domain, longest first (`a.b.example` → `a.b.example`, `b.example`, `example`). */
function suffixes(name: string): string[] {
  const out = [name];
  for (let i = name.indexOf('.'); i >= 0 && i < name.length - 1; i = name.indexOf('.', i + 1)) {
    out.push(name.slice(i + 1));
  }
  return out;
}

/**
 * The category ids of each name today, as the resolver reads them (docs/architecture.md "Decision
 * order"): the nearest approved recategorisation (`category_overrides`) of the name or a parent
 * wins alone; else every `category_domains` category of the name and its parents. Ascending ids;
 * an empty array for a name in no category. Deployment-wide data: no tenant in it.
 */
export async function categoriesOfNames(
  db: Kysely<Database>,
  names: readonly string[],
): Promise<Map<string, number[]>> {
  const wanted = [...new Set(names.flatMap(suffixes))];
  const feed = new Map<string, number[]>();
  const overrides = new Map<string, number>();
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const chunk = wanted.slice(i, i + CHUNK);
    const [rows, over] = await Promise.all([
      db.selectFrom('category_domains').select(['domain', 'category_id']).where('domain', 'in', chunk).execute(),
      db.selectFrom('category_overrides').select(['domain', 'category_id']).where('domain', 'in', chunk).execute(),
    ]);
    for (const r of rows) {
      const list = feed.get(r.domain);
      if (list) list.push(Number(r.category_id));
      else feed.set(r.domain, [Number(r.category_id)]);
    }
    for (const r of over) overrides.set(r.domain, Number(r.category_id));
  }
  const out = new Map<string, number[]>();
  for (const name of names) {
    const levels = suffixes(name);
    const override = levels.find((s) => overrides.has(s));
    if (override !== undefined) {
      out.set(name, [overrides.get(override)!]);
      continue;
    }
    const set = new Set<number>();
    for (const s of levels) for (const c of feed.get(s) ?? []) set.add(c);
    out.set(
      name,
      [...set].sort((a, b) => a - b),
    );
  }
  return out;
}

/**
 * `POST /policies/{id}/preview` (docs/categories.md "Preview"): of the policy's customer's queries in
 * {@link previewRange} (the customer's time zone, UTC when unset), `total` all of them
 * (`stats_hourly`) and `blocked` those whose name has a category in `body.blocked` — or, with
 * `allow_unclassified: false`, no category at all — counted from the `domain` keys of
 * `stats_hourly_top` whatever their logged action, with the names' categories today
 * ({@link categoriesOfNames}). Both roll-up reads are scoped to the caller's tenant in SQL. Writes
 * nothing.
 * @throws ApiError ERR_NOT_FOUND when the policy is missing or in another tenant
 */
export async function previewPolicy(
  deps: CoreDeps,
  caller: Caller,
  policyId: number,
  body: PolicyPreviewBody,
): Promise<PolicyPreview> {
  const db = deps.handle.db;
  const scope = scopeOf(caller);
  const policy = await getPolicy(deps, caller, policyId);
  const customer = await getCustomer(deps, caller, policy.user_id);
  const range = previewRange(customer.timezone || 'UTC', deps.now());
  const totalRow = await db
    .selectFrom('stats_hourly')
    .innerJoin('customers', 'customers.id', 'stats_hourly.customer_id')
    .where(customerInScope(scope))
    .where('stats_hourly.customer_id', '=', policy.user_id)
    .where('stats_hourly.hour', '>=', range.fromHour)
    .where('stats_hourly.hour', '<', range.toHour)
    .select(sql<number | string | null>`sum(stats_hourly.requests)`.as('total'))
    .executeTakeFirst();
  const counts = await db
    .selectFrom('stats_hourly_top')
    .innerJoin('customers', 'customers.id', 'stats_hourly_top.customer_id')
    .where(customerInScope(scope))
    .where('stats_hourly_top.customer_id', '=', policy.user_id)
    .where('stats_hourly_top.dim', '=', 'domain')
    .where('stats_hourly_top.hour', '>=', range.fromHour)
    .where('stats_hourly_top.hour', '<', range.toHour)
    .groupBy('stats_hourly_top.key')
    .select(['stats_hourly_top.key as key', sql<number | string>`sum(stats_hourly_top.count)`.as('count')])
    .execute();
  const blockedSet = new Set(body.blocked);
  const blockUnclassified = body.allow_unclassified === false;
  const categories = await categoriesOfNames(
    db,
    counts.map((r) => r.key),
  );
  let blocked = 0;
  const hits: PolicyPreview['top'] = [];
  for (const r of counts) {
    const cats = categories.get(r.key) ?? [];
    const hit = cats.length === 0 ? blockUnclassified : cats.some((c) => blockedSet.has(c));
    if (!hit) continue;
    const count = Number(r.count);
    blocked += count;
    hits.push({ domain: r.key, count, categories: cats });
  }
  hits.sort((a, b) => b.count - a.count || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
  return {
    from: new Date(range.from).toISOString(),
    to: new Date(range.to).toISOString(),
    total: Number(totalRow?.total ?? 0),
    blocked,
    top: hits.slice(0, TOP),
  };
}
