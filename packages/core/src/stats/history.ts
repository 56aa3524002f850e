import { createReadPool, type DatabaseHandle, type ReadPool, ReadTimeoutError, readDeadlineCheck } from '@cordon/db';
import { ApiError, HISTORY_LIMIT, type HistoryEntry, type HistoryPage, type HistoryQuery } from '@cordon/shared';
import { type InferResult, sql } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { getCustomer } from '../customers/index.ts';
import { customerInScope, scopeOf } from '../tenancy/index.ts';
import { rangeIn } from './service.ts';

/** `%`, `_` and `\` taken literally in a LIKE pattern (escape character `\`). */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The in-process read pool of a handle whose deps carry none (a bare embedding, core's tests). */
const fallbackPools = new WeakMap<DatabaseHandle, ReadPool>();

/** `deps.readPool`, else one read pool per handle that runs in this thread (no threads to close). */
function readPoolOf(deps: CoreDeps): ReadPool {
  if (deps.readPool) return deps.readPool;
  let pool = fallbackPools.get(deps.handle);
  if (pool === undefined) {
    pool = createReadPool(deps.handle, { threads: false });
    fallbackPools.set(deps.handle, pool);
  }
  return pool;
}

const ORDER_COLUMN = {
  time: 'query_log.ts',
  qname: 'query_log.qname',
  qtype: 'query_log.qtype',
  client_ip: 'query_log.client_ip',
  action: 'query_log.action',
  reason: 'query_log.reason',
} as const;

/**
 * `GET /users/{id}/history/{action}/{date}` (spec-notes §7; docs/api.md "History"): the customer's raw
 * query-log rows of the range, `action` `all`, `allowed` (every answered query: allowed and
 * bypassed) or `blocked`; `q` matches part of the qname, the client address, the logged user's name,
 * the device's name or the matched name (case-insensitive, `%` and `_` literal); ordered by
 * `order_by` then id, `order_dir` (default newest first); paged by `limit` (default 1000) and
 * `offset`. Each row names its device, user and group (migration 0029), and the name of the answer's
 * alias chain that blocked it, if any (migration 0036). `domain`, `category`, `location`,
 * `device`, `user` and `client_ip` narrow to exactly that (the dashboards' drill-down, issue 29).
 * The history reads the raw rows: it is a search, not a dashboard.
 *
 * The count and the page are a heavy read (a month of a busy customer is millions of rows): one
 * statement (the count as a subquery beside the page's columns; counted alone only for an empty page
 * past the first), run through the read pool (`deps.readPool`, @cordon/db `createReadPool`: read threads on SQLite,
 * a bounded number of connections on PostgreSQL), off the API's request loop, at most one search of
 * the customer at a time, within the pool's time bound (docs/decisions.md "Heavy reads").
 * @throws ApiError ERR_NOT_FOUND (customer not visible), ERR_VALIDATION (date), ERR_QUERY_TIMEOUT
 *   (the search ran out of time)
 */
export async function searchHistory(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  action: 'all' | 'allowed' | 'blocked',
  date: string,
  query: HistoryQuery,
): Promise<HistoryPage> {
  const customer = await getCustomer(deps, caller, customerId);
  const range = rangeIn(customer.timezone || 'UTC', date, deps.now(), 'date');
  const { db, dialect } = deps.handle;
  // One customer row (its primary key), then the (customer_id, ts) index gives the range; the count
  // reads that index alone when nothing else filters (no join: a device's name is matched through the
  // customer's device ids).
  let base = db
    .selectFrom('query_log')
    .innerJoin('customers', 'customers.id', 'query_log.customer_id')
    .where(customerInScope(scopeOf(caller)))
    .where('customers.id', '=', customerId)
    .where('query_log.customer_id', '=', customerId)
    .where('query_log.ts', '>=', range.from)
    .where('query_log.ts', '<', range.to);
  // SQLite: lets the read stop itself at its deadline from inside the scan.
  const deadline = readDeadlineCheck(dialect, 'query_log.id');
  if (deadline) base = base.where(deadline);
  if (action === 'blocked') base = base.where('query_log.action', '=', 'blocked');
  if (action === 'allowed') base = base.where('query_log.action', '<>', 'blocked');
  // The exact filters (issue 29 drill-down): each an equality on the customer's own rows.
  if (query.domain !== undefined) base = base.where('query_log.qname', '=', query.domain);
  if (query.location !== undefined) base = base.where('query_log.location_id', '=', query.location);
  if (query.device !== undefined) base = base.where('query_log.device_id', '=', query.device);
  if (query.user !== undefined) base = base.where('query_log.user_name', '=', query.user);
  if (query.client_ip !== undefined) base = base.where('query_log.client_ip', '=', query.client_ip);
  if (query.category !== undefined) {
    // `categories` is a comma-separated id list (schema.ts QueryLogTable).
    base = base.where(sql<boolean>`(',' || query_log.categories || ',') like ${`%,${query.category},%`}`);
  }
  const q = query.q?.trim().toLowerCase();
  if (q) {
    const pattern = `%${likeLiteral(q)}%`;
    // SQLite's LIKE folds ASCII case itself, and its lower() folds nothing more: lower() would only
    // cost a string per row. PostgreSQL's LIKE is case-sensitive.
    const folded = (column: string) =>
      dialect === 'sqlite'
        ? sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'`
        : sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
    const devices = db
      .selectFrom('devices')
      .select('devices.id')
      .where('devices.customer_id', '=', customerId)
      .where(folded('devices.name'));
    base = base.where((eb) =>
      eb.or([
        folded('query_log.qname'),
        sql<boolean>`query_log.client_ip like ${pattern} escape '\\'`,
        folded('query_log.user_name'),
        // The device's name now; a device of another customer never matches (ids are logged per customer).
        eb('query_log.device_id', 'in', devices),
        sql<boolean>`query_log.matched_name like ${pattern} escape '\\'`,
      ]),
    );
  }
  const counted = base.select((eb) => eb.fn.countAll<number | string>().as('n'));
  const dir = query.order_dir ?? 'desc';
  const limit = query.limit ?? HISTORY_LIMIT;
  const offset = query.offset ?? 0;
  const paged = base
    .leftJoin('devices', (j) =>
      j.onRef('devices.id', '=', 'query_log.device_id').onRef('devices.customer_id', '=', 'query_log.customer_id'),
    )
    .leftJoin('locations', 'locations.id', 'query_log.location_id')
    .leftJoin('user_groups', (j) =>
      j
        .onRef('user_groups.id', '=', 'query_log.group_id')
        .onRef('user_groups.customer_id', '=', 'query_log.customer_id'),
    )
    .select([
      'query_log.id',
      'query_log.ts',
      'query_log.qname',
      'query_log.qtype',
      'query_log.action',
      'query_log.reason',
      'query_log.categories',
      'query_log.client_ip',
      'query_log.location_id',
      'locations.name as location',
      'query_log.policy_id',
      'query_log.rcode',
      'query_log.protocol',
      'query_log.device_id',
      'devices.name as device',
      'query_log.user_name',
      'query_log.group_id',
      'user_groups.name as group',
      'query_log.matched_name',
      // The count beside the page (an uncorrelated subquery, evaluated once): one statement, one
      // snapshot; a second read counts only when a page past the first comes back empty.
      counted.as('total'),
    ])
    .orderBy(ORDER_COLUMN[query.order_by ?? 'time'], dir)
    .orderBy('query_log.id', dir)
    .limit(limit)
    .offset(offset);
  const read = async <Q extends typeof counted | typeof paged>(q: Q): Promise<InferResult<Q>> => {
    try {
      const [rows] = await readPoolOf(deps).read([q.compile()], { key: `customer:${customerId}` });
      return rows as InferResult<Q>;
    } catch (err) {
      if (err instanceof ReadTimeoutError) throw new ApiError('ERR_QUERY_TIMEOUT');
      throw err;
    }
  };
  const rows = await read(paged);
  const total =
    rows.length > 0 ? Number(rows[0]!.total) : offset === 0 && limit > 0 ? 0 : Number((await read(counted))[0]?.n ?? 0);
  const ids = new Set<number>();
  for (const r of rows) for (const c of r.categories ? r.categories.split(',') : []) ids.add(Number(c));
  const names = new Map<number, string>();
  if (ids.size > 0) {
    const cats = await db
      .selectFrom('categories')
      .select(['id', 'name'])
      .where('id', 'in', [...ids])
      .execute();
    for (const c of cats) names.set(c.id, c.name);
  }
  const data: HistoryEntry[] = rows.map((r) => ({
    id: Number(r.id),
    time: new Date(Number(r.ts)).toISOString(),
    qname: r.qname,
    qtype: r.qtype,
    action: r.action,
    reason: r.reason,
    categories: (r.categories ? r.categories.split(',') : []).map((c) => ({
      id: Number(c),
      name: names.get(Number(c)) ?? c,
    })),
    client_ip: r.client_ip,
    location_id: r.location_id,
    location: r.location ?? null,
    policy_id: r.policy_id,
    rcode: r.rcode,
    protocol: r.protocol,
    device_id: r.device_id === null ? null : Number(r.device_id),
    device: r.device ?? null,
    user: r.user_name === '' ? null : r.user_name,
    group_id: r.group_id === null ? null : Number(r.group_id),
    group: r.group ?? null,
    matched_name: r.matched_name === '' ? null : r.matched_name,
  }));
  return { total, data };
}
