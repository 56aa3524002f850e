/**
 * Liveness and readiness of a `cordon serve` process (docs/operations.md "Monitoring"): `GET
 * /healthz` answers while the process's event loop turns; `GET /readyz` says whether the roles it
 * runs can do their work, with each check's reason.
 */
import type { DatabaseHandle } from '@cordon/db';
import type { ResolverMetrics } from '@cordon/resolver';
import { sql } from 'kysely';

/** One readiness check: its name, whether it passed, and why (always set: the operator reads it). */
export interface ReadinessCheck {
  name: 'database' | 'snapshot' | 'upstream' | 'query_log';
  ok: boolean;
  /** True when a failure of this check makes the process not ready (false: reported only). */
  required: boolean;
  detail: string;
}

/** The body of `/readyz`. */
export interface Readiness {
  ready: boolean;
  roles: readonly string[];
  checks: ReadinessCheck[];
}

/** What readiness reads; the resolver's figures only when the process runs the resolver. */
export interface ReadinessSources {
  roles: readonly string[];
  handle: DatabaseHandle;
  resolverMetrics?: () => Promise<ResolverMetrics | null>;
  /** Longest wait for `select 1`, ms; default 2,000. */
  databaseTimeoutMs?: number;
  /** Clock, ms since the epoch; default `Date.now`. */
  now?: () => number;
}

/** How long after query-log rows were dropped the `query_log` check still fails, ms. */
export const QUERY_LOG_DROP_WINDOW_MS = 60_000;

/**
 * Builds the readiness probe of one process. The checks, by role:
 * - `database` (`select 1` within the timeout): required for `api` and `worker`; for a resolver
 *   reported only, since it keeps answering from its snapshot while the database is away
 *   (docs/operations.md "When the database goes away") and a load balancer must not drop every
 *   resolver of a fleet during a database failover;
 * - `snapshot` (resolver): loaded and answering, with where it came from (the database or disk);
 * - `upstream` (resolver): at least one upstream answering;
 * - `query_log` (resolver): no row dropped within the last {@link QUERY_LOG_DROP_WINDOW_MS} (the
 *   writer and its spool could not keep up).
 * Never throws: a failing source is a failed check.
 */
export function createReadiness(sources: ReadinessSources): () => Promise<Readiness> {
  const now = sources.now ?? Date.now;
  const timeoutMs = sources.databaseTimeoutMs ?? 2000;
  const resolver = sources.roles.includes('resolver');
  const databaseRequired = sources.roles.includes('api') || sources.roles.includes('worker');
  // The dropped count at the last check and when it last grew.
  let lastDropped: number | null = null;
  let lastDropAt = Number.NEGATIVE_INFINITY;

  async function database(): Promise<ReadinessCheck> {
    const started = now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        sql`select 1`.execute(sources.handle.db),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      return { name: 'database', ok: true, required: databaseRequired, detail: `answered in ${now() - started} ms` };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return { name: 'database', ok: false, required: databaseRequired, detail: `unreachable: ${reason}` };
    } finally {
      clearTimeout(timer);
    }
  }

  function resolverChecks(m: ResolverMetrics | null): ReadinessCheck[] {
    if (m === null) {
      return [{ name: 'snapshot', ok: false, required: true, detail: 'the resolver has not started or has stopped' }];
    }
    const checks: ReadinessCheck[] = [
      {
        name: 'snapshot',
        ok: true,
        required: true,
        detail: m.snapshot.servingFromDisk
          ? 'serving the snapshot read from disk (the database was unreachable at start)'
          : `loaded: ${m.snapshot.categoryDomains} categorised domains, ${m.snapshot.devices} devices`,
      },
    ];
    const healthy = m.upstreamHealth.filter((u) => u.healthy);
    checks.push({
      name: 'upstream',
      ok: healthy.length > 0,
      required: true,
      detail:
        healthy.length > 0
          ? `${healthy.length} of ${m.upstreamHealth.length} upstreams answering`
          : `no upstream answering: ${m.upstreamHealth.map((u) => `${u.host}:${u.port} failed ${u.consecutiveFailures} in a row`).join(', ')}`,
    });
    const dropped = m.queryLog.dropped;
    if (lastDropped !== null && dropped > lastDropped) lastDropAt = now();
    lastDropped = dropped;
    const recentlyDropped = now() - lastDropAt < QUERY_LOG_DROP_WINDOW_MS;
    checks.push({
      name: 'query_log',
      ok: !recentlyDropped,
      required: true,
      detail: recentlyDropped
        ? `rows dropped within the last ${QUERY_LOG_DROP_WINDOW_MS / 1000} s (${dropped} since start): the log cannot keep up`
        : `${m.queryLog.written} rows written, ${m.queryLog.spooled} spooled, ${dropped} dropped since start`,
    });
    return checks;
  }

  return async () => {
    const [db, dns] = await Promise.all([
      database(),
      resolver && sources.resolverMetrics ? sources.resolverMetrics().catch(() => null) : Promise.resolve(undefined),
    ]);
    const checks = [db, ...(dns === undefined ? [] : resolverChecks(dns))];
    return { ready: checks.every((c) => c.ok || !c.required), roles: sources.roles, checks };
  };
}
