import type { CategoryFeedsTable, Database } from '@cordon/db';
import { categoryById, type Feed, type FeedFormat, type FeedListQuery } from '@cordon/shared';
import type { Kysely, Selectable } from 'kysely';
import { containsAnyText, type ListSort, listPage } from '../paging/index.ts';

export type FeedRow = Selectable<CategoryFeedsTable>;

/** The list's order (docs/api.md "Conventions"): `name` by default. */
const SORT: ListSort<string> = {
  columns: {
    name: 'category_feeds.name',
    format: 'category_feeds.format',
    last_run_at: 'category_feeds.last_run_at',
    created_at: 'category_feeds.created_at',
  },
  text: ['category_feeds.name', 'category_feeds.url'],
  tiebreak: 'category_feeds.id',
};

/** The `category_domains.source` of feed `id`'s names. */
export function feedSource(id: number): string {
  return `feed:${id}`;
}

/** A row on the wire, with its category's name. */
export function toFeed(r: FeedRow): Feed {
  return {
    id: r.id,
    name: r.name,
    format: r.format as FeedFormat,
    category_id: r.category_id,
    category_name: categoryById(r.category_id)?.name ?? `#${r.category_id}`,
    url: r.url,
    interval_hours: r.interval_hours,
    enabled: r.enabled === 1,
    last_run_at: r.last_run_at,
    last_status: r.last_status === 'ok' || r.last_status === 'error' ? r.last_status : null,
    last_error: r.last_error,
    last_rows: r.last_rows,
    last_skipped: r.last_skipped,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** A page of feeds; `filter` matches the name or the URL. @throws ApiError ERR_VALIDATION for an unknown sortkey */
export async function listFeeds(db: Kysely<Database>, query: FeedListQuery): Promise<{ data: Feed[]; total: number }> {
  let base = db.selectFrom('category_feeds').selectAll('category_feeds');
  const filter = query.filter;
  if (filter) base = base.where(containsAnyText(['category_feeds.name', 'category_feeds.url'], filter));
  const { rows, total } = await listPage(base, query, SORT);
  return { data: rows.map(toFeed), total };
}

/** Feed `id`, or undefined. */
export function getFeed(db: Kysely<Database>, id: number): Promise<FeedRow | undefined> {
  return db.selectFrom('category_feeds').selectAll().where('id', '=', id).executeTakeFirst();
}

/** True when another feed than `exceptId` is called `name` (case-insensitively). */
export async function nameTaken(db: Kysely<Database>, name: string, exceptId?: number): Promise<boolean> {
  let q = db
    .selectFrom('category_feeds')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()));
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Enabled feeds with a URL and an interval whose last run is older than it at `now` (or never ran). */
export async function dueFeeds(db: Kysely<Database>, now: number): Promise<FeedRow[]> {
  const rows = await db
    .selectFrom('category_feeds')
    .selectAll()
    .where('enabled', '=', 1)
    .where('url', 'is not', null)
    .where('interval_hours', '>', 0)
    .orderBy('id')
    .execute();
  return rows.filter((r) => r.last_run_at === null || Date.parse(r.last_run_at) + r.interval_hours * 3_600_000 <= now);
}
