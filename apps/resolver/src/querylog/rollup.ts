import type { Database, QueryLogTable } from '@cordon/db';
import { MALWARE_CATEGORY_IDS, PHISHING_CATEGORY_IDS } from '@cordon/shared';
import type { Kysely, Selectable, Transaction } from 'kysely';

/** A query-log row as inserted (the same type as writer.ts's `QueryLogRow`, kept here so neither file imports the other). */
type QueryLogRow = Omit<Selectable<QueryLogTable>, 'id'>;

const MALWARE_IDS = new Set(MALWARE_CATEGORY_IDS);
const PHISHING_IDS = new Set(PHISHING_CATEGORY_IDS);

/** One hour in ms: the roll-up bucket (docs/architecture.md "Statistics"). */
export const ROLLUP_HOUR_MS = 3_600_000;

/** The roll-up action of a logged action: `blocked`, `bypassed`, or `allowed` for every other one. */
export function rollupAction(action: string): 'allowed' | 'blocked' | 'bypassed' {
  return action === 'blocked' || action === 'bypassed' ? action : 'allowed';
}

/** The deltas one batch adds to `stats_hourly` and `stats_hourly_top` (migration 0019). */
export interface RollupDeltas {
  hourly: Array<Database['stats_hourly']>;
  top: Array<Database['stats_hourly_top']>;
}

/**
 * Folds a batch of query-log rows into hourly roll-up deltas: per customer, location (0 = none) and
 * UTC hour the requests and actions, and per dimension (`domain` qname, `sourceip` client address,
 * `policy` id, each `category` id of the comma list, and for a query in a malware or phishing
 * category `malware_domain`/`malware_sourceip` or `phishing_domain`/`phishing_sourceip`) and action the count. Keys come out sorted, so
 * concurrent writers upsert in the same order (no deadlock on PostgreSQL).
 */
export function foldRollups(rows: readonly QueryLogRow[]): RollupDeltas {
  const hourly = new Map<string, Database['stats_hourly']>();
  const top = new Map<string, Database['stats_hourly_top']>();
  const bump = (customer: number, loc: number, hour: number, dim: string, action: string, key: string) => {
    const k = `${customer}|${dim}|${hour}|${action}|${key}|${loc}`;
    const t = top.get(k);
    if (t) t.count++;
    else top.set(k, { customer_id: customer, location_id: loc, hour, dim, action, key, count: 1 });
  };
  for (const r of rows) {
    const hour = r.ts - (((r.ts % ROLLUP_HOUR_MS) + ROLLUP_HOUR_MS) % ROLLUP_HOUR_MS);
    const loc = r.location_id ?? 0;
    const action = rollupAction(r.action);
    const hk = `${r.customer_id}|${hour}|${loc}`;
    let h = hourly.get(hk);
    if (!h) {
      h = { customer_id: r.customer_id, location_id: loc, hour, requests: 0, allowed: 0, blocked: 0, bypassed: 0 };
      hourly.set(hk, h);
    }
    h.requests++;
    h[action]++;
    bump(r.customer_id, loc, hour, 'domain', action, r.qname);
    bump(r.customer_id, loc, hour, 'sourceip', action, r.client_ip);
    if (r.policy_id !== null) bump(r.customer_id, loc, hour, 'policy', action, String(r.policy_id));
    if (r.categories !== '') {
      let malware = false;
      let phishing = false;
      for (const c of r.categories.split(',')) {
        bump(r.customer_id, loc, hour, 'category', action, c);
        const id = Number(c);
        if (MALWARE_IDS.has(id)) malware = true;
        if (PHISHING_IDS.has(id)) phishing = true;
      }
      // The security reports (spec §3 "Report types"): malware and phishing by domain and source address.
      if (malware) {
        bump(r.customer_id, loc, hour, 'malware_domain', action, r.qname);
        bump(r.customer_id, loc, hour, 'malware_sourceip', action, r.client_ip);
      }
      if (phishing) {
        bump(r.customer_id, loc, hour, 'phishing_domain', action, r.qname);
        bump(r.customer_id, loc, hour, 'phishing_sourceip', action, r.client_ip);
      }
    }
  }
  const sorted = <T>(m: Map<string, T>) => [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map((e) => e[1]);
  return { hourly: sorted(hourly), top: sorted(top) };
}

/** Rows per upsert statement: 7 columns × 500 stays under both dialects' bind-parameter limits. */
const UPSERT_CHUNK = 500;

/** Adds `deltas` to the roll-up tables (insert, or add to the existing counts). */
export async function applyRollups(db: Kysely<Database> | Transaction<Database>, deltas: RollupDeltas): Promise<void> {
  for (let i = 0; i < deltas.hourly.length; i += UPSERT_CHUNK) {
    await db
      .insertInto('stats_hourly')
      .values(deltas.hourly.slice(i, i + UPSERT_CHUNK))
      .onConflict((oc) =>
        oc.columns(['customer_id', 'hour', 'location_id']).doUpdateSet((eb) => ({
          requests: eb('stats_hourly.requests', '+', eb.ref('excluded.requests')),
          allowed: eb('stats_hourly.allowed', '+', eb.ref('excluded.allowed')),
          blocked: eb('stats_hourly.blocked', '+', eb.ref('excluded.blocked')),
          bypassed: eb('stats_hourly.bypassed', '+', eb.ref('excluded.bypassed')),
        })),
      )
      .execute();
  }
  for (let i = 0; i < deltas.top.length; i += UPSERT_CHUNK) {
    await db
      .insertInto('stats_hourly_top')
      .values(deltas.top.slice(i, i + UPSERT_CHUNK))
      .onConflict((oc) =>
        oc
          .columns(['customer_id', 'dim', 'hour', 'action', 'key', 'location_id'])
          .doUpdateSet((eb) => ({ count: eb('stats_hourly_top.count', '+', eb.ref('excluded.count')) })),
      )
      .execute();
  }
}

/**
 * Roll-up deltas gathered over several batches and written together (docs/architecture.md
 * "Statistics"): the writer inserts each batch's raw rows at once and adds the batch here; the
 * deltas are upserted when `maxRows` rows wait or `maxAgeMs` passed since the first, and on every
 * flush and close. Folding many batches first collapses repeated keys (a popular qname, a client), so
 * far fewer roll-up rows are upserted than rows logged. The price: a crash loses the roll-ups of at
 * most that window's rows (their raw rows stay).
 */
export class RollupBuffer {
  private hourly = new Map<string, Database['stats_hourly']>();
  private top = new Map<string, Database['stats_hourly_top']>();
  private rows = 0;
  private since = 0;

  constructor(
    private readonly maxRows = 50_000,
    private readonly maxAgeMs = 1_000,
  ) {}

  /** Adds a batch's deltas. */
  add(batch: readonly QueryLogRow[]): void {
    if (batch.length === 0) return;
    if (this.rows === 0) this.since = Date.now();
    this.rows += batch.length;
    const d = foldRollups(batch);
    for (const h of d.hourly) {
      const k = `${h.customer_id}|${h.hour}|${h.location_id}`;
      const cur = this.hourly.get(k);
      if (!cur) this.hourly.set(k, h);
      else {
        cur.requests += h.requests;
        cur.allowed += h.allowed;
        cur.blocked += h.blocked;
        cur.bypassed += h.bypassed;
      }
    }
    for (const t of d.top) {
      const k = `${t.customer_id}|${t.dim}|${t.hour}|${t.action}|${t.key}|${t.location_id}`;
      const cur = this.top.get(k);
      if (!cur) this.top.set(k, t);
      else cur.count += t.count;
    }
  }

  /** True when the buffer should be written now. */
  due(): boolean {
    return this.rows > 0 && (this.rows >= this.maxRows || Date.now() - this.since >= this.maxAgeMs);
  }

  /** True when deltas wait. */
  get pending(): boolean {
    return this.rows > 0;
  }

  /** Takes the gathered deltas (sorted keys) and empties the buffer. */
  take(): RollupDeltas {
    const sorted = <T>(m: Map<string, T>) => [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map((e) => e[1]);
    const out = { hourly: sorted(this.hourly), top: sorted(this.top) };
    this.hourly = new Map();
    this.top = new Map();
    this.rows = 0;
    return out;
  }
}
