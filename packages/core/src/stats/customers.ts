import { CompiledTemplates, type Database, prepared, slot } from '@cordon/db';
import {
  ApiError,
  type CustomerStatus,
  type CustomerStatusList,
  type CustomerStatusQuery,
  parseLicenceLimit,
  Role,
  statsRange,
} from '@cordon/shared';
import {
  type AliasedExpression,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type RawBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { containsPattern, type ListSort, sortColumn } from '../paging/index.ts';
import { customerInScope, defaultPolicyOf, mspInScope, scopeOf, type TenantScope } from '../tenancy/index.ts';
import { HOUR_MS, hourBounds } from './repository.ts';

/** How long a location without traffic, or a device without contact, counts as silent (docs/api.md "Stats"). */
export const SILENT_AFTER_MS = 24 * HOUR_MS;

/** The list's order: every figure is a column of the derived table `s` (docs/api.md "Conventions"). */
const SORT: ListSort<string> = {
  columns: {
    name: 's.name',
    requests_today: 's.requests_today',
    blocked_today: 's.blocked_today',
    requests_last_hour: 's.requests_last_hour',
    last_seen: 's.last_seen_hour',
    locations_silent: 's.locations_silent',
    devices_silent: 's.devices_silent',
    devices: 's.devices',
    level: 's.level',
  },
  text: ['s.name'],
  tiebreak: 's.id',
};

/**
 * Today's hour bounds of each time zone its customers use ('' = the MSP's zone), as SQL CASE
 * expressions over slots (`from0`, `to0`, …, `fromD`/`toD` the MSP's zone), with the slots' values now.
 */
function todayBounds(zones: readonly string[], mspZone: string, now: number) {
  const fallback = hourBounds(statsRange('today', mspZone || 'UTC', now));
  // A zone this runtime does not know counts in the MSP's (as the customer's own stats would fail).
  const bounds = (tz: string) => {
    try {
      return hourBounds(statsRange('today', tz, now));
    } catch {
      return fallback;
    }
  };
  const named = zones.filter((z) => z !== '');
  const values: Record<string, number> = { fromD: fallback.from, toD: fallback.to };
  named.forEach((z, i) => {
    const b = bounds(z);
    values[`from${i}`] = b.from;
    values[`to${i}`] = b.to;
  });
  // Parameters cast to bigint (PostgreSQL cannot type a bare parameter that only appears in a CASE
  // branch), not literals: the statement's text stays the same from hour to hour, so its prepared
  // form is reused (`prepared` of @cordon/db).
  const hour = (name: string) => sql<number>`cast(${slot<number>(name)} as bigint)`;
  const pick = (side: 'from' | 'to'): RawBuilder<number> => {
    const whens = named.map((z, i) => sql`when ${z} then ${hour(`${side}${i}`)}`);
    if (whens.length === 0) return hour(`${side}D`);
    return sql<number>`(case customers.timezone ${sql.join(whens, sql` `)} else ${hour(`${side}D`)} end)`;
  };
  return { from: pick('from'), to: pick('to'), values };
}

/** The figures of a customer status row, by column name of the derived table `s` ({@link SORT}). */
type Figure =
  | 'default_policy_id'
  | 'level'
  | 'requests_today'
  | 'blocked_today'
  | 'requests_last_hour'
  | 'last_seen_hour'
  | 'locations'
  | 'locations_silent'
  | 'devices'
  | 'devices_silent';

/** A status row as the query answers it (bigint sums and counts come as text from PostgreSQL). */
interface StatusRow {
  id: number;
  name: string;
  timezone: string;
  default_policy_id: number | null;
  level: string | null;
  requests_today: number | string;
  blocked_today: number | string;
  requests_last_hour: number | string;
  last_seen_hour: number | string | null;
  locations: number | string;
  locations_silent: number | string;
  devices: number | string;
  devices_silent: number | string;
}

const FIGURES: readonly Figure[] = [
  'default_policy_id',
  'level',
  'requests_today',
  'blocked_today',
  'requests_last_hour',
  'last_seen_hour',
  'locations',
  'locations_silent',
  'devices',
  'devices_silent',
];

/** A figure's expression over the `customers` row of the query it goes in, named as the figure. */
type FigureExpression = (eb: ExpressionBuilder<Database, 'customers'>) => AliasedExpression<unknown, Figure>;

/**
 * Every figure as a correlated subquery on the `customers` row of the query, each on an index
 * (`stats_hourly` primary key (customer_id, hour, location_id), `locations_customer_id`,
 * `device_contact_hours` primary key (customer_id, hour), `policies_customer_id`).
 */
function figureExpressions(today: { from: Expression<number>; to: Expression<number> }) {
  const lastHourFrom = slot<number>('lastHourFrom');
  const silentHour = slot<number>('silentHour');
  const silentContactHour = slot<string>('silentContactHour');
  const id = sql.ref('customers.id');
  const expr: Record<Figure, FigureExpression> = {
    default_policy_id: (eb) => defaultPolicyOf(eb.ref('customers.id')).select('dp.id').as('default_policy_id'),
    level: (eb) => defaultPolicyOf(eb.ref('customers.id')).select('dp.level').as('level'),
    requests_today: () =>
      sql<number | string>`(select coalesce(sum(h.requests), 0) from stats_hourly h
        where h.customer_id = ${id} and h.hour >= ${today.from} and h.hour < ${today.to})`.as('requests_today'),
    blocked_today: () =>
      sql<number | string>`(select coalesce(sum(h.blocked), 0) from stats_hourly h
        where h.customer_id = ${id} and h.hour >= ${today.from} and h.hour < ${today.to})`.as('blocked_today'),
    requests_last_hour: () =>
      sql<number | string>`(select coalesce(sum(h.requests), 0) from stats_hourly h
        where h.customer_id = ${id} and h.hour >= cast(${lastHourFrom} as bigint))`.as('requests_last_hour'),
    last_seen_hour: () =>
      sql<number | string | null>`(select max(h.hour) from stats_hourly h where h.customer_id = ${id})`.as(
        'last_seen_hour',
      ),
    locations: () =>
      sql<number | string>`(select count(*) from locations l where l.customer_id = ${id})`.as('locations'),
    locations_silent: () =>
      sql<number | string>`(select count(*) from locations l where l.customer_id = ${id} and not exists
        (select 1 from stats_hourly h where h.customer_id = l.customer_id and h.location_id = l.id
          and h.hour >= cast(${silentHour} as bigint)))`.as('locations_silent'),
    devices: () =>
      sql<number | string>`(select coalesce(sum(dh.devices), 0) from device_contact_hours dh
        where dh.customer_id = ${id})`.as('devices'),
    // '' (never heard from) sorts before every hour: silent too.
    devices_silent: () =>
      sql<number | string>`(select coalesce(sum(dh.devices), 0) from device_contact_hours dh
        where dh.customer_id = ${id} and dh.hour < ${silentContactHour})`.as('devices_silent'),
  };
  return expr;
}

/**
 * The values of the slots of {@link figureExpressions} at `now`. Silent means nothing since the start
 * of the hour {@link SILENT_AFTER_MS} ago, for locations (no roll-up hour from it on) and devices (no
 * contact in it or later: `silentContactHour`, that hour as `device_contact_hours.hour` writes it).
 */
function figureValues(now: number) {
  const silentHour = hourBounds({ from: now - SILENT_AFTER_MS, to: now }).from;
  return {
    lastHourFrom: hourBounds({ from: now - HOUR_MS, to: now }).from,
    silentHour,
    silentContactHour: new Date(silentHour).toISOString().slice(0, 13),
  };
}

/**
 * `scope` with its tenant's id as the slot `scopeId`, and the slot's value: a statement built with it
 * serves every tenant of the scope's kind ({@link CompiledTemplates}).
 */
function scopeSlot(scope: TenantScope): { scope: TenantScope; values: Record<string, number> } {
  if (scope.kind === 'msp') return { scope: { kind: 'msp', mspId: slot('scopeId') }, values: { scopeId: scope.mspId } };
  if (scope.kind === 'customer') {
    return { scope: { kind: 'customer', customerId: slot('scopeId') }, values: { scopeId: scope.customerId } };
  }
  return { scope, values: {} };
}

/**
 * The customers of MSP `mspId` within `scope`, as the derived table `s`, each with the figures named
 * in `figures` ({@link figureExpressions}): the rows the list sorts and pages. `filter` is a LIKE
 * pattern (`containsPattern`) or its slot.
 */
function statusRows(
  db: Kysely<Database>,
  scope: TenantScope,
  mspId: number,
  filter: string | undefined,
  expr: Record<Figure, FigureExpression>,
  figures: readonly Figure[],
) {
  let inner = db
    .selectFrom('customers')
    .where(customerInScope(scope))
    .where('customers.msp_id', '=', mspId)
    .select((eb) => [
      'customers.id as id',
      'customers.account_name as name',
      'customers.timezone as timezone',
      ...figures.map((f) => expr[f](eb)),
    ]);
  // `containsText` with the pattern as a slot (it builds the pattern from the text otherwise).
  if (filter !== undefined) {
    inner = inner.where(sql<SqlBool>`lower(${sql.ref('customers.account_name')}) like ${filter} escape '\\'`);
  }
  return db.selectFrom(inner.as('s')).selectAll('s');
}

/** The statements of this module compiled once per shape, per database handle ({@link CompiledTemplates}). */
const templates = new WeakMap<Kysely<Database>, CompiledTemplates<Record<string, unknown>>>();

/** The compiled statements of `db`: at most 256 shapes (sort key × direction × filter × the MSP's zones × scope). */
function templatesOf(db: Kysely<Database>): CompiledTemplates<Record<string, unknown>> {
  let t = templates.get(db);
  if (t === undefined) {
    t = new CompiledTemplates(256);
    templates.set(db, t);
  }
  return t;
}

/**
 * What the customer list needs of MSP `mspId` before its page, in one statement: the MSP's time zone
 * and licence and its customers' count (as `getMsp` reads them), and the distinct time zones of its
 * customers within `scope` (a row each, joined to the MSP's row).
 * @returns undefined when the MSP is missing or `scope` cannot see it
 */
async function mspAndZones(
  db: Kysely<Database>,
  dialect: string,
  tenant: TenantScope,
  role: Role,
  mspId: number,
): Promise<{ timezone: string; license: string; customersCount: number; zones: string[] } | undefined> {
  const { scope, values } = scopeSlot(tenant);
  const sales = role === Role.Sales;
  const statement = templatesOf(db).bind(`msp|${dialect}|${scope.kind}|${sales}`, { ...values, mspId }, () => {
    const zones = db
      .selectFrom('customers')
      .where(customerInScope(scope))
      .where('customers.msp_id', '=', slot<number>('mspId'))
      .select('customers.timezone as zone')
      .distinct();
    return db
      .selectFrom('msps')
      .leftJoin(zones.as('z'), (j) => j.on(sql<boolean>`1 = 1`))
      .where('msps.id', '=', slot<number>('mspId'))
      .where(mspInScope(scope, role))
      .select((eb) => [
        'msps.timezone',
        'msps.license',
        'z.zone',
        eb
          .selectFrom('customers')
          .whereRef('customers.msp_id', '=', 'msps.id')
          .select(eb.fn.countAll<number | string>().as('n'))
          .as('customers_count'),
      ]);
  });
  const rows = (await db.executeQuery(prepared(statement))).rows;
  const first = rows[0];
  if (!first) return undefined;
  return {
    timezone: first.timezone,
    license: first.license,
    customersCount: Number(first.customers_count ?? 0),
    zones: rows.flatMap((r) => (r.zone === null ? [] : [r.zone])),
  };
}

/**
 * `GET /msp/{id}/stats/customers` (issue 29 "100 customers at a glance"; docs/api.md "Stats"): one
 * page of the MSP's customers with their status, today's requests and blocked (each customer's own
 * day), and default protection level, sorted and filtered in SQL, plus the MSP's licence use.
 * An MSP admin reads its own MSP only; a system admin any MSP. The page's statement is built and
 * compiled once per shape and bound to each request's values ({@link CompiledTemplates}).
 * @throws ApiError ERR_NOT_FOUND when the caller cannot see MSP `mspId`
 */
export async function customerStatuses(
  deps: CoreDeps,
  caller: Caller,
  mspId: number,
  query: CustomerStatusQuery,
): Promise<CustomerStatusList> {
  const tenant = scopeOf(caller);
  const { db, dialect } = deps.handle;
  const now = deps.now();
  const msp = await mspAndZones(db, dialect, tenant, caller.role, mspId);
  if (!msp) throw new ApiError('ERR_NOT_FOUND');
  const zones = [...new Set(msp.zones)].sort();
  const column = sortColumn(query, SORT.columns);
  const { scope, values: scopeValues } = scopeSlot(tenant);
  const today = todayBounds(zones, msp.timezone, now);
  const values: Record<string, unknown> = {
    ...scopeValues,
    ...today.values,
    ...figureValues(now),
    mspId,
    limit: query.limit,
    offset: query.offset,
    ...(query.filter !== undefined ? { filter: containsPattern(query.filter) } : {}),
  };
  const key = [
    'page',
    dialect,
    scope.kind,
    column,
    query.sortdir,
    query.filter !== undefined,
    JSON.stringify(zones),
  ].join('|');
  const statement = templatesOf(db).bind(key, values, () =>
    pageStatement(db, dialect, scope, column, query.sortdir, query.filter !== undefined, today),
  );
  const rows = (await db.executeQuery(prepared(statement))).rows;
  const total =
    rows.length > 0
      ? Number(rows[0]!.total)
      : query.offset === 0
        ? 0
        : Number(
            (
              await statusRows(db, tenant, mspId, values.filter as string | undefined, figureExpressions(today), [])
                .clearSelect()
                .select(sql<number | string>`count(*)`.as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          );
  const num = (v: number | string | null | undefined) => Number(v ?? 0);
  const data: CustomerStatus[] = rows.map((r) => ({
    id: r.id,
    name: r.name,
    timezone: r.timezone,
    default_policy_id: r.default_policy_id ?? null,
    level: r.level ?? null,
    requests_today: num(r.requests_today),
    blocked_today: num(r.blocked_today),
    requests_last_hour: num(r.requests_last_hour),
    last_seen: r.last_seen_hour === null ? null : new Date(num(r.last_seen_hour)).toISOString(),
    locations: num(r.locations),
    locations_silent: num(r.locations_silent),
    devices: num(r.devices),
    devices_silent: num(r.devices_silent),
  }));
  return {
    data,
    total,
    licence: { used: msp.customersCount, limit: parseLicenceLimit(msp.license) },
    as_of: new Date(now).toISOString(),
  };
}

/**
 * The page's statement of one shape, over slots (`mspId`, `scopeId`, `filter` (a LIKE pattern),
 * `limit`, `offset`, and those of `today` and {@link figureExpressions}): the page (`p`) sorted with
 * only the figure it sorts by (none for the name) and the count of all rows beside it, then every
 * figure of the page's rows alone: the silent counts of every customer would be read otherwise
 * (bench/README.md "API reads").
 * The outer query sorts the page's rows as the page did.
 */
function pageStatement(
  db: Kysely<Database>,
  dialect: string,
  scope: TenantScope,
  column: string,
  sortdir: 'asc' | 'desc',
  filtered: boolean,
  today: { from: Expression<number>; to: Expression<number> },
) {
  const ordered = (ref: string) => (SORT.text.includes(column) ? sql`lower(${sql.ref(ref)})` : sql.ref(ref));
  const sortFigure = FIGURES.find((f) => column === `s.${f}`);
  const expr = figureExpressions(today);
  const filter = filtered ? slot<string>('filter') : undefined;
  const base = statusRows(db, scope, slot('mspId'), filter, expr, sortFigure ? [sortFigure] : []);
  const counted = base.clearSelect().select(sql<number | string>`count(*)`.as('n')).$castTo<{ n: number | string }>();
  const page = base
    .select(counted.as('total'))
    .orderBy(ordered(column), sortdir)
    .orderBy(sql.ref(SORT.tiebreak), sortdir)
    .limit(slot<number>('limit'))
    .offset(slot<number>('offset'));
  const outer = db
    .selectFrom(page.as('p'))
    .innerJoin('customers', 'customers.id', 'p.id')
    .where(customerInScope(scope))
    .orderBy(ordered(`p.${column.slice('s.'.length)}`), sortdir)
    .orderBy('p.id', sortdir);
  const common = (eb: ExpressionBuilder<Database, 'customers'>, figures: readonly Figure[]) => [
    eb.ref('customers.id').as('id'),
    eb.ref('customers.account_name').as('name'),
    eb.ref('customers.timezone').as('timezone'),
    ...figures.map((f) => expr[f](eb)),
  ];
  // PostgreSQL: the figures of a customer as four LATERAL aggregates (the default policy; today's and
  // the last hour's requests in one pass over today's roll-up rows; its locations; its devices' contact
  // hours, each with a FILTER), not ten correlated subqueries each started once per row and reading
  // the same rows again (bench/README.md "API reads"). SQLite has no LATERAL; its subqueries stay.
  if (dialect === 'postgres') {
    const lastHourFrom = sql<number>`cast(${slot<number>('lastHourFrom')} as bigint)`;
    const silentHour = sql<number>`cast(${slot<number>('silentHour')} as bigint)`;
    const statement = outer
      .leftJoinLateral(
        (eb) =>
          defaultPolicyOf(eb.ref('customers.id')).select(['dp.id as default_policy_id', 'dp.level as level']).as('pol'),
        (j) => j.onTrue(),
      )
      .leftJoinLateral(
        () =>
          sql<{
            requests_today: number | string;
            blocked_today: number | string;
            requests_last_hour: number | string;
          }>`(
            select coalesce(sum(h.requests) filter (where h.hour >= ${today.from} and h.hour < ${today.to}), 0) as requests_today,
              coalesce(sum(h.blocked) filter (where h.hour >= ${today.from} and h.hour < ${today.to}), 0) as blocked_today,
              coalesce(sum(h.requests) filter (where h.hour >= ${lastHourFrom}), 0) as requests_last_hour
            from stats_hourly h
            where h.customer_id = customers.id and h.hour >= least(${today.from}, ${lastHourFrom}))`.as('hs'),
        (j) => j.onTrue(),
      )
      .leftJoinLateral(
        () =>
          sql<{ locations: number | string; locations_silent: number | string }>`(
            select count(*) as locations,
              count(*) filter (where not exists (select 1 from stats_hourly h
                where h.customer_id = l.customer_id and h.location_id = l.id and h.hour >= ${silentHour})) as locations_silent
            from locations l where l.customer_id = customers.id)`.as('ls'),
        (j) => j.onTrue(),
      )
      .leftJoinLateral(
        (eb) =>
          eb
            .selectFrom('device_contact_hours as dh')
            .whereRef('dh.customer_id', '=', 'customers.id')
            .select([
              sql<number | string>`coalesce(sum(dh.devices), 0)`.as('devices'),
              sql<
                number | string
              >`coalesce(sum(dh.devices) filter (where dh.hour < ${slot<string>('silentContactHour')}), 0)`.as(
                'devices_silent',
              ),
            ])
            .as('dv'),
        (j) => j.onTrue(),
      )
      .select((eb) => [
        ...common(eb as unknown as ExpressionBuilder<Database, 'customers'>, ['last_seen_hour']),
        'pol.default_policy_id as default_policy_id',
        'pol.level as level',
        'hs.requests_today as requests_today',
        'hs.blocked_today as blocked_today',
        'hs.requests_last_hour as requests_last_hour',
        'ls.locations as locations',
        'ls.locations_silent as locations_silent',
        'dv.devices as devices',
        'dv.devices_silent as devices_silent',
        'p.total as total',
      ]);
    return statement.$castTo<StatusRow & { total: number | string }>();
  }
  const statement = outer.select((eb) => [
    ...common(eb as unknown as ExpressionBuilder<Database, 'customers'>, FIGURES),
    'p.total as total',
  ]);
  return statement.$castTo<StatusRow & { total: number | string }>();
}
