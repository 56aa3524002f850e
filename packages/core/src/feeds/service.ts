import { bumpCategoryStamp, type Database, nowIso } from '@cordon/db';
import {
  FeedFetchError,
  type FeedImportReport,
  type FetchFeedOptions,
  fetchFeed,
  importFeedLines,
} from '@cordon/feeds';
import {
  ApiError,
  type ConfirmNameQuery,
  type Dependants,
  type DependantsResponse,
  type Feed,
  type FeedCreate,
  type FeedFormat,
  type FeedListQuery,
  type FeedRun,
  type FeedUpdate,
  Role,
} from '@cordon/shared';
import type { Kysely } from 'kysely';
import { type Caller, type CoreDeps, OPERATOR } from '../context.ts';
import { dependantsOf, inUse, inUseError, kindOf } from '../dependants/index.ts';
import { mutate } from '../mutation/index.ts';
import type { WorkerJob } from '../worker/index.ts';
import * as repo from './repository.ts';

const TOPICS = ['categories'] as const;
const DUPLICATE = 'A feed with this name already exists.';

/** @throws ApiError ERR_FORBIDDEN unless `caller` is the system admin (the category database is the deployment's) */
function requireSystem(caller: Caller): void {
  if (caller.role !== Role.System) throw new ApiError('ERR_FORBIDDEN');
}

/** The feed as the audit log keeps it (no secrets in a feed: the row as it is). */
function auditView(row: repo.FeedRow | undefined): Record<string, unknown> | null {
  return row ? { ...row } : null;
}

/**
 * `GET /feeds` (docs/api.md "Category feeds"): a page of the feed sources with their last run.
 * @throws ApiError ERR_FORBIDDEN for any caller but the system admin; ERR_VALIDATION for an unknown sortkey
 */
export async function listFeeds(
  deps: CoreDeps,
  caller: Caller,
  query: FeedListQuery,
): Promise<{ data: Feed[]; total: number }> {
  requireSystem(caller);
  return repo.listFeeds(deps.handle.db, query);
}

/**
 * `GET /feeds/{feedId}`. @throws ApiError ERR_FORBIDDEN as {@link listFeeds}; ERR_NOT_FOUND
 */
export async function getFeed(deps: CoreDeps, caller: Caller, id: number): Promise<Feed> {
  requireSystem(caller);
  const row = await repo.getFeed(deps.handle.db, id);
  if (!row) throw new ApiError('ERR_NOT_FOUND');
  return repo.toFeed(row);
}

/**
 * `POST /feeds`: a new feed source. A feed without a URL is filled by uploads only, so its interval
 * is stored as 0. Audit `feed.create`. Nothing is fetched until the worker's next round or a run.
 * @throws ApiError ERR_FORBIDDEN as {@link listFeeds}; ERR_CONFLICT (field `name`) for a taken name
 */
export async function createFeed(deps: CoreDeps, caller: Caller, body: FeedCreate): Promise<Feed> {
  requireSystem(caller);
  return mutate(deps, caller, { topics: [], audit: { action: 'feed.create', entity: 'feed' } }, async (trx, note) => {
    if (await repo.nameTaken(trx, body.name)) throw new ApiError('ERR_CONFLICT', DUPLICATE, { name: DUPLICATE });
    const at = nowIso();
    const row = await trx
      .insertInto('category_feeds')
      .values({
        name: body.name,
        format: body.format,
        category_id: body.category_id,
        url: body.url,
        interval_hours: body.url === null ? 0 : body.interval_hours,
        enabled: body.enabled ? 1 : 0,
        created_at: at,
        updated_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    Object.assign(note, { entityId: row.id, after: auditView(row) });
    return repo.toFeed(row);
  });
}

/**
 * `PATCH /feeds/{feedId}`: changes a feed source. A new category moves the names the feed already
 * brought to it in the same transaction (published as `categories`, so resolvers follow within a
 * second); a new format or URL applies from the next run. Audit `feed.update`.
 * @throws ApiError ERR_FORBIDDEN as {@link listFeeds}; ERR_NOT_FOUND; ERR_CONFLICT for a taken name
 */
export async function updateFeed(deps: CoreDeps, caller: Caller, id: number, body: FeedUpdate): Promise<Feed> {
  requireSystem(caller);
  return mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'feed.update', entity: 'feed' } },
    async (trx, note) => {
      const before = await repo.getFeed(trx, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (body.name !== undefined && (await repo.nameTaken(trx, body.name, id))) {
        throw new ApiError('ERR_CONFLICT', DUPLICATE, { name: DUPLICATE });
      }
      const url = body.url === undefined ? before.url : body.url;
      const interval = body.interval_hours ?? before.interval_hours;
      await trx
        .updateTable('category_feeds')
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.format !== undefined ? { format: body.format } : {}),
          ...(body.category_id !== undefined ? { category_id: body.category_id } : {}),
          ...(body.enabled !== undefined ? { enabled: body.enabled ? 1 : 0 } : {}),
          url,
          interval_hours: url === null ? 0 : interval,
          updated_at: nowIso(),
        })
        .where('id', '=', id)
        .execute();
      if (body.category_id !== undefined && body.category_id !== before.category_id) {
        await trx
          .updateTable('category_domains')
          .set({ category_id: body.category_id })
          .where('source', '=', repo.feedSource(id))
          .execute();
        await bumpCategoryStamp(trx, deps.now());
      }
      const after = await repo.getFeed(trx, id);
      if (!after) throw new ApiError('ERR_NOT_FOUND');
      Object.assign(note, { entityId: id, before: auditView(before), after: auditView(after) });
      return repo.toFeed(after);
    },
  );
}

/** The names feed `id` brought to the category database (kind `domains`), first ones by name. */
async function namesOf(db: Kysely<Database>, id: number): Promise<Dependants> {
  return dependantsOf({
    domains: await kindOf(
      db.selectFrom('category_domains').where('category_domains.source', '=', repo.feedSource(id)),
      'category_domains.domain',
    ),
  });
}

/**
 * `GET /feeds/{feedId}/dependants` (docs/api.md "Deletes of things in use"; issue 29): the names a
 * delete of the feed takes out of its category, `in_use` true when the DELETE needs `confirm_name`.
 * @throws ApiError ERR_FORBIDDEN as {@link listFeeds}; ERR_NOT_FOUND
 */
export async function feedDependants(deps: CoreDeps, caller: Caller, id: number): Promise<DependantsResponse> {
  requireSystem(caller);
  if (!(await repo.getFeed(deps.handle.db, id))) throw new ApiError('ERR_NOT_FOUND');
  const dependants = await namesOf(deps.handle.db, id);
  return { in_use: inUse(dependants), dependants };
}

/**
 * `DELETE /feeds/{feedId}[?confirm_name=]`: removes the feed and every categorisation it brought, in
 * one transaction; published as `categories`. A feed that brought names is refused with 409
 * ERR_IN_USE (their count, first names) unless `confirm_name` is its name exactly (docs/api.md
 * "Deletes of things in use"). Audit `feed.delete` (after: the names removed, when any).
 * @throws ApiError ERR_FORBIDDEN as {@link listFeeds}; ERR_NOT_FOUND; ERR_VALIDATION (`confirm_name`
 *   not the name); InUseError
 */
export async function deleteFeed(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  query: ConfirmNameQuery = {},
): Promise<{ deleted: true }> {
  requireSystem(caller);
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'feed.delete', entity: 'feed' } },
    async (trx, note) => {
      const before = await repo.getFeed(trx, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (query.confirm_name !== undefined && query.confirm_name !== before.name) {
        const message = 'Type the exact name to confirm.';
        throw new ApiError('ERR_VALIDATION', message, { confirm_name: message });
      }
      const dependants = await namesOf(trx, id);
      if (inUse(dependants) && query.confirm_name === undefined) {
        throw inUseError(
          before.name,
          dependants,
          'Its names leave their category with it: confirm with its name (confirm_name).',
        );
      }
      await trx.deleteFrom('category_domains').where('source', '=', repo.feedSource(id)).execute();
      await bumpCategoryStamp(trx, deps.now());
      await trx.deleteFrom('category_feeds').where('id', '=', id).execute();
      Object.assign(note, { entityId: id, before: auditView(before) });
      if (inUse(dependants)) note.after = { deleted_with: dependants };
    },
  );
  return { deleted: true };
}

/** How a run gets a feed's text: the URL fetcher (tests pass their own CA). */
export interface FeedRunOptions {
  readonly fetch?: FetchFeedOptions;
}

/**
 * Imports `text` as feed `row`'s names (all or nothing), then records the outcome on the feed
 * (last run, status, counts or error) through the mutation path: audit `feed.run`, `categories`
 * published after commit so resolvers reload within a second.
 * @returns the run's answer; `failure` set when the text could not be had or imported
 */
async function recordRun(
  deps: CoreDeps,
  caller: Caller,
  row: repo.FeedRow,
  text: string | null,
  failure: string | null,
): Promise<{ run: FeedRun; failure: string | null }> {
  let report: FeedImportReport | null = null;
  let error = failure;
  if (text !== null && error === null) {
    try {
      report = await importFeedLines(deps.handle, text.split(/\r?\n/), {
        format: row.format as FeedFormat,
        categoryIds: [row.category_id],
        source: repo.feedSource(row.id),
      });
    } catch (e) {
      error = `The import failed: ${(e as Error).message}`;
    }
  }
  const run = await mutate(
    deps,
    caller,
    { topics: report ? TOPICS : [], audit: { action: 'feed.run', entity: 'feed' } },
    async (trx, note) => {
      await trx
        .updateTable('category_feeds')
        .set({
          last_run_at: new Date(deps.now()).toISOString(),
          last_status: error === null ? 'ok' : 'error',
          last_error: error,
          ...(report
            ? {
                last_rows: report.rows,
                last_skipped: report.ipEntries + report.invalidEntries + report.unsupportedEntries,
              }
            : {}),
        })
        .where('id', '=', row.id)
        .execute();
      const after = await repo.getFeed(trx, row.id);
      if (!after) throw new ApiError('ERR_NOT_FOUND');
      Object.assign(note, {
        entityId: row.id,
        after: { status: after.last_status, error, rows: report?.rows ?? null, skipped: after.last_skipped },
      });
      return {
        feed: repo.toFeed(after),
        rows: report?.rows ?? 0,
        ip_entries: report?.ipEntries ?? 0,
        invalid_entries: report?.invalidEntries ?? 0,
        unsupported_entries: report?.unsupportedEntries ?? 0,
        examples: [...(report?.examples ?? [])],
      };
    },
  );
  return { run, failure: error };
}

/**
 * Runs feed `id` now, or as the worker's scheduled run: fetches its URL and replaces its names
 * (all or nothing: a failed fetch or import keeps the previous names). The outcome is stored on the
 * feed either way.
 * @throws ApiError ERR_FORBIDDEN as {@link listFeeds}; ERR_NOT_FOUND; ERR_UNPROCESSABLE when the feed
 *   has no URL, or (after recording it) with the fetch or import error's text
 */
export async function runFeed(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  options: FeedRunOptions = {},
): Promise<FeedRun> {
  requireSystem(caller);
  const row = await repo.getFeed(deps.handle.db, id);
  if (!row) throw new ApiError('ERR_NOT_FOUND');
  if (row.url === null) throw new ApiError('ERR_UNPROCESSABLE', 'This feed has no URL: upload its file instead.');
  let text: string | null = null;
  let failure: string | null = null;
  try {
    text = await fetchFeed(row.url, options.fetch);
  } catch (e) {
    if (!(e instanceof FeedFetchError)) throw e;
    failure = e.message;
  }
  const outcome = await recordRun(deps, caller, row, text, failure);
  if (outcome.failure !== null) throw new ApiError('ERR_UNPROCESSABLE', outcome.failure);
  return outcome.run;
}

/**
 * `POST /feeds/{feedId}/upload`: imports an uploaded file (UTF-8 text in the feed's format) as the
 * feed's names, all or nothing; the outcome is stored on the feed.
 * @throws ApiError ERR_FORBIDDEN as {@link listFeeds}; ERR_NOT_FOUND; ERR_UNPROCESSABLE when the
 *   import fails (recorded first)
 */
export async function uploadFeed(deps: CoreDeps, caller: Caller, id: number, bytes: Buffer): Promise<FeedRun> {
  requireSystem(caller);
  const row = await repo.getFeed(deps.handle.db, id);
  if (!row) throw new ApiError('ERR_NOT_FOUND');
  const outcome = await recordRun(deps, caller, row, bytes.toString('utf8'), null);
  if (outcome.failure !== null) throw new ApiError('ERR_UNPROCESSABLE', outcome.failure);
  return outcome.run;
}

/**
 * The worker's round (docs/operations.md "Category feeds"): runs every enabled feed with a URL
 * whose interval has passed since its last run, one after another, as the operator. A feed that
 * fails is recorded on its row and does not stop the others.
 * @returns the ids run and whether each succeeded
 */
export async function runDueFeeds(
  deps: CoreDeps,
  caller: Caller,
  options: FeedRunOptions = {},
): Promise<Array<{ id: number; ok: boolean }>> {
  requireSystem(caller);
  const out: Array<{ id: number; ok: boolean }> = [];
  for (const row of await repo.dueFeeds(deps.handle.db, deps.now())) {
    try {
      await runFeed(deps, caller, row.id, options);
      out.push({ id: row.id, ok: true });
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      out.push({ id: row.id, ok: false });
    }
  }
  return out;
}

/** How often the worker looks for feeds due a fetch, ms (each feed has its own interval in hours). */
export const FEED_ROUND_MS = 15 * 60_000;

/**
 * The worker job `feeds.refresh` (docs/operations.md "Category feeds"): every 15 minutes, runs the
 * feeds whose interval has passed ({@link runDueFeeds}), as the operator, logging each failure.
 */
export function feedsJob(options: FeedRunOptions = {}): WorkerJob {
  return {
    name: 'feeds.refresh',
    intervalMs: FEED_ROUND_MS,
    run: async ({ deps, log }) => {
      for (const r of await runDueFeeds(deps, OPERATOR, options)) {
        if (r.ok) log.info({ feedId: r.id }, 'category feed refreshed');
        else log.warn({ feedId: r.id }, 'category feed run failed; its error is on the feeds page');
      }
    },
  };
}
