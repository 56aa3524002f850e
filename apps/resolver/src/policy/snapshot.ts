import type { ChangeFeed, ChangeTopic, DatabaseHandle } from '@cordon/db';
import { claimRefusal, parseCidr } from '@cordon/shared';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Identity } from '../request.ts';
import { CategoryIndex, CategoryIndexBuilder } from './category-index.ts';
import { type CompiledPolicy, compilePolicy } from './decide.ts';
import { PrefixMatcher } from './prefix-matcher.ts';

/** What a location address resolves to. `policyId` null: the location inherits the customer default. */
export interface LocationEntry {
  readonly customerId: number;
  readonly locationId: number;
  readonly policyId: number | null;
}

/**
 * The tenant part of the resolver's in-memory snapshot (STYLE.md §5): location addresses as a
 * prefix matcher, compiled policies, and each customer's default policy. Immutable once built;
 * a reload builds a new one and swaps the reference.
 */
export interface TenantSnapshot {
  readonly locations: PrefixMatcher<LocationEntry>;
  readonly policies: ReadonlyMap<number, CompiledPolicy>;
  /** customer id → id of its default policy (`is_default = 1`). */
  readonly defaultPolicy: ReadonlyMap<number, number>;
}

/** A snapshot that knows nobody: every client is unknown (used until the first load). */
export function emptyTenantSnapshot(): TenantSnapshot {
  return { locations: new PrefixMatcher(), policies: new Map(), defaultPolicy: new Map() };
}

const UNKNOWN: Identity = Object.freeze({ kind: 'unknown' });

/**
 * Who is asking (DESIGN.md §8): the longest location prefix covering `clientIp` (an IPv4-mapped
 * IPv6 source is its IPv4 address), and the effective policy — the location's own, else the
 * customer's default. Equal prefixes were settled when the snapshot was built (oldest claim wins).
 */
export function identifyClient(tenants: TenantSnapshot, clientIp: string): Identity {
  const loc = tenants.locations.lookup(clientIp);
  if (!loc) return UNKNOWN;
  return {
    kind: 'ok',
    customerId: loc.customerId,
    locationId: loc.locationId,
    policyId: loc.policyId ?? tenants.defaultPolicy.get(loc.customerId) ?? null,
  };
}

/**
 * Reads the tenant snapshot in one transaction (a consistent view across the four tables), every
 * table in id order so the same rows always build the same snapshot. Address claims (DESIGN.md §14):
 * - longest prefix wins at lookup; for one range claimed twice (rows written before canonical
 *   storage, or by hand) the OLDEST claim — lowest address id — wins, and the later one is logged;
 * - a claim nobody may hold (/0, an IPv6 prefix covering ::ffff:0:0/96) is skipped and logged, so a
 *   row left by hand can never make Cordon an open resolver (DESIGN.md §8);
 * - unparsable addresses are skipped and logged.
 * Throws when the database cannot be read.
 */
export async function loadTenantSnapshot(handle: DatabaseHandle, logger: Logger): Promise<TenantSnapshot> {
  return handle.db.transaction().execute(async (trx) => {
    const policies = await trx
      .selectFrom('policies')
      .select(['id', 'customer_id', 'is_default', 'allow_unclassified'])
      .orderBy('id')
      .execute();
    const blockedRows = await trx
      .selectFrom('policy_categories')
      .select(['policy_id', 'category_id'])
      .orderBy('policy_id')
      .orderBy('category_id')
      .execute();
    const locations = await trx
      .selectFrom('locations')
      .select(['id', 'customer_id', 'policy_id'])
      .orderBy('id')
      .execute();
    const addresses = await trx
      .selectFrom('location_addresses')
      .select(['id', 'ip', 'location_id'])
      .orderBy('id')
      .execute();

    const blockedBy = new Map<number, number[]>();
    for (const r of blockedRows) {
      let list = blockedBy.get(r.policy_id);
      if (!list) {
        list = [];
        blockedBy.set(r.policy_id, list);
      }
      list.push(r.category_id);
    }
    const compiled = new Map<number, CompiledPolicy>();
    const defaultPolicy = new Map<number, number>();
    for (const p of policies) {
      compiled.set(
        p.id,
        compilePolicy(p.id, p.customer_id, blockedBy.get(p.id) ?? [], Number(p.allow_unclassified) === 1),
      );
      if (Number(p.is_default) === 1) defaultPolicy.set(p.customer_id, p.id);
    }
    const byLocation = new Map<number, LocationEntry>();
    for (const l of locations) {
      byLocation.set(l.id, { customerId: l.customer_id, locationId: l.id, policyId: l.policy_id });
    }
    const matcher = new PrefixMatcher<LocationEntry>();
    for (const a of addresses) {
      const entry = byLocation.get(a.location_id);
      if (!entry) continue;
      const range = parseCidr(a.ip);
      if (!range) {
        logger.warn({ ip: a.ip, locationId: a.location_id }, 'skipping unparsable location address');
        continue;
      }
      const refusal = claimRefusal(range, null);
      if (refusal) {
        logger.warn(
          { ip: a.ip, locationId: a.location_id, reason: refusal },
          'skipping a location address nobody may claim',
        );
        continue;
      }
      if (!matcher.add(a.ip, entry)) {
        logger.warn(
          { ip: a.ip, locationId: a.location_id, addressId: a.id },
          'ignoring a later claim of a claimed range',
        );
      }
    }
    return { locations: matcher, policies: compiled, defaultPolicy };
  });
}

/**
 * Rows per page when streaming `category_domains`: small enough that a page's row objects die
 * young (≈ 1 MB of them) instead of growing the old generation, large enough that the keyset
 * queries cost little (DESIGN.md §13 memory budget).
 */
const CATEGORY_PAGE = 10_000;

/**
 * Reads `category_domains` into a {@link CategoryIndex} (DESIGN.md §7–8, §13 memory): first one
 * aggregate query for the number of distinct domains and their total length, so the builder's
 * buffers are allocated once at their final size; then keyset pages ordered by domain so a
 * domain's rows (one per category and source) are adjacent, each page's rows dropped before the
 * next is read. A page's last domain may continue on the next page, so it is held back and
 * re-read. On SQLite the connection's page cache is released afterwards (`PRAGMA shrink_memory`).
 * @throws when the database cannot be read, or one domain has more than {@link CATEGORY_PAGE} rows
 */
export async function loadCategoryIndex(handle: DatabaseHandle): Promise<CategoryIndex> {
  const totals = await handle.db
    .selectFrom((eb) => eb.selectFrom('category_domains').select('domain').distinct().as('d'))
    .select([
      (eb) => eb.fn.countAll<number | string>().as('domains'),
      sql<number | string | null>`sum(length(d.domain))`.as('bytes'),
    ])
    .executeTakeFirstOrThrow();
  // length() counts characters; names are ASCII (IDNs are stored as punycode), else the builder grows.
  const builder = new CategoryIndexBuilder({ domains: Number(totals.domains), bytes: Number(totals.bytes ?? 0) });
  let after: string | null = null;
  const ids: number[] = [];
  for (;;) {
    let q = handle.db
      .selectFrom('category_domains')
      .select(['domain', 'category_id'])
      .orderBy('domain')
      .limit(CATEGORY_PAGE);
    if (after !== null) q = q.where('domain', '>', after);
    const rows = await q.execute();
    if (rows.length === 0) break;
    const full = rows.length === CATEGORY_PAGE;
    const holdBack = full ? rows[rows.length - 1]!.domain : null;
    if (full && rows[0]!.domain === holdBack) throw new Error(`domain ${holdBack} has more than ${CATEGORY_PAGE} rows`);
    let current: string | null = null;
    for (const r of rows) {
      if (r.domain === holdBack) break;
      if (r.domain !== current) {
        if (current !== null) builder.add(current, ids);
        current = r.domain;
        ids.length = 0;
      }
      ids.push(r.category_id);
    }
    if (current !== null) builder.add(current, ids);
    ids.length = 0;
    if (!full) break;
    after = current;
  }
  if (handle.dialect === 'sqlite') await sql`pragma shrink_memory`.execute(handle.db);
  return builder.build();
}

/** Counters of snapshot reloads, for metrics. */
export interface SnapshotStats {
  tenantReloads: number;
  categoryReloads: number;
  reloadFailures: number;
  categoryDomains: number;
  categoryLoadMs: number;
}

/**
 * Holds the current snapshot and keeps it fresh from the change feed (DESIGN.md §9): 'tenants',
 * 'policies' and 'locations' reload the tenant part at once; 'categories' reloads the category
 * index in the background. Either reload builds a new object and swaps the reference, so queries
 * keep using the old one meanwhile; bursts coalesce into at most one queued reload. A failed
 * reload (database unreachable) keeps the last snapshot and is logged.
 */
export class SnapshotStore {
  tenants: TenantSnapshot = emptyTenantSnapshot();
  categories: CategoryIndex = CategoryIndex.empty();
  readonly stats: SnapshotStats = {
    tenantReloads: 0,
    categoryReloads: 0,
    reloadFailures: 0,
    categoryDomains: 0,
    categoryLoadMs: 0,
  };
  private unsubscribe: (() => void) | null = null;

  /** Reloads the tenant part; concurrent calls coalesce. Rejects when the database cannot be read. */
  readonly reloadTenants: () => Promise<void>;
  /** Reloads the category index; concurrent calls coalesce. Rejects when the database cannot be read. */
  readonly reloadCategories: () => Promise<void>;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly logger: Logger,
  ) {
    this.reloadTenants = coalesced(async () => {
      this.tenants = await loadTenantSnapshot(this.handle, this.logger);
      this.stats.tenantReloads++;
    });
    this.reloadCategories = coalesced(async () => {
      const t0 = performance.now();
      const index = await loadCategoryIndex(this.handle);
      this.categories = index;
      this.stats.categoryReloads++;
      this.stats.categoryDomains = index.size;
      this.stats.categoryLoadMs = Math.round(performance.now() - t0);
      this.logger.info(
        { domains: index.size, ms: this.stats.categoryLoadMs, bytes: index.byteSize },
        'category index loaded',
      );
    });
  }

  /** Loads both parts. Rejects when the database cannot be read (startup must not serve nothing silently). */
  async load(): Promise<void> {
    await Promise.all([this.reloadTenants(), this.reloadCategories()]);
  }

  /** Subscribes to the change feed; {@link close} unsubscribes. */
  follow(changes: ChangeFeed): void {
    this.unsubscribe = changes.subscribe((topic) => this.onChange(topic));
  }

  private onChange(topic: ChangeTopic): void {
    const run = topic === 'categories' ? this.reloadCategories : this.reloadTenants;
    run().catch((err: unknown) => {
      this.stats.reloadFailures++;
      this.logger.error({ err, topic }, 'snapshot reload failed; serving the last snapshot');
    });
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}

/**
 * Wraps an async task so overlapping calls coalesce: while one run is in flight, every further
 * call shares one queued run that starts after it (so a change made during a reload is not missed).
 */
export function coalesced(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  const run = (): Promise<void> => {
    if (!running) {
      running = task().finally(() => {
        running = null;
      });
      return running;
    }
    if (!queued) {
      queued = running
        .catch(() => undefined)
        .then(() => {
          queued = null;
          return run();
        });
    }
    return queued;
  };
  return run;
}
