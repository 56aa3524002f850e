import { type ChangeFeed, createChangeFeed, type DatabaseHandle } from '@cordon/db';
import pino from 'pino';
import { type ResolverOptions, type RunningResolver, startResolver } from '../../src/index.ts';
import { type FakeUpstream, startFakeUpstream } from './fake-upstream.ts';

/** A resolver on loopback over a test database, with its change feed and a fake upstream. */
export interface ResolverStack {
  readonly changes: ChangeFeed;
  /** The upstream every name goes to unless a test routes it elsewhere. */
  readonly upstream: FakeUpstream;
  readonly resolver: RunningResolver;
  /** The resolver's UDP port (TCP listens on the same one). */
  readonly port: number;
  /** Stops the resolver, the feed and the upstream; the database stays the caller's. */
  close(): Promise<void>;
}

/**
 * Starts the resolver the dig tests share over `handle` (seed it first: the first snapshot loads at
 * start): UDP and TCP on a free loopback port, one fake upstream, blocked answers `127.0.0.1`/`::1`,
 * the query log flushed every 50 ms, a 500 ms upstream timeout. `overrides` replace any option.
 */
export async function startResolverStack(
  handle: DatabaseHandle,
  overrides: Partial<ResolverOptions> = {},
): Promise<ResolverStack> {
  const changes = createChangeFeed(handle);
  await changes.start();
  const upstream = await startFakeUpstream();
  const resolver = await startResolver({
    db: handle,
    changes,
    logger: pino({ level: 'silent' }),
    dns: { host: '127.0.0.1', port: 0 },
    upstreams: [{ host: '127.0.0.1', port: upstream.port }],
    blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
    queryLog: { flushMs: 50 },
    upstreamTimeoutMs: 500,
    ...overrides,
  });
  return {
    changes,
    upstream,
    resolver,
    port: resolver.address.udp.port,
    close: async () => {
      await resolver.close();
      await changes.close();
      await upstream.close();
    },
  };
}

/** Polls `check` every 20 ms until it is true; @returns the elapsed ms. @throws when `ms` pass first */
export async function within(ms: number, check: () => boolean | Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`not true within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
