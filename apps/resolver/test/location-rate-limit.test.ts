import dgram from 'node:dgram';
import { type ChangeFeed, createChangeFeed, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import dnsPacket from 'dns-packet';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningResolver, startResolver } from '../src/index.ts';
import { type FakeUpstream, startFakeUpstream } from './helpers/fake-upstream.ts';
import { seedTenants } from './helpers/seed.ts';

const TC = 0x200;

/** A wire query for `name` `type` with id `id`. */
function query(id: number, name: string, type: 'A' | 'ANY'): Buffer {
  return dnsPacket.encode({
    id,
    type: 'query',
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type: type as 'A', class: 'IN' }],
  });
}

/**
 * Sends `count` queries from one UDP socket bound to `from` (one source address and port, as a
 * site behind one NAT address looks) in windows of `window`, each window sent at once and its
 * answers awaited (at most 500 ms) before the next, so the client's own receive buffer never
 * overflows. Returns the answers: full (no TC) and truncated.
 */
async function burst(
  port: number,
  from: string,
  count: number,
  make: (id: number) => Buffer,
  window = 200,
): Promise<{ full: number; truncated: number; ms: number }> {
  const socket = dgram.createSocket('udp4');
  let full = 0;
  let truncated = 0;
  let got = 0;
  socket.on('message', (msg) => {
    got++;
    if ((msg.readUInt16BE(2) & TC) === 0) full++;
    else truncated++;
  });
  await new Promise<void>((r) => socket.bind(0, from, () => r()));
  const start = performance.now();
  for (let sent = 0; sent < count; ) {
    const n = Math.min(window, count - sent);
    const want = got + n;
    for (let i = 0; i < n; i++) socket.send(make(sent + i), port, '127.0.0.1');
    sent += n;
    const until = Date.now() + 500;
    while (got < want && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
  }
  const ms = performance.now() - start;
  await new Promise((r) => setTimeout(r, 100));
  socket.close();
  return { full, truncated, ms };
}

/**
 * Response-rate limiting versus claimed locations (issue 30, "RRL throttles a school";
 * docs/operations.md "Response-rate limiting"). Seed: customer Acme's location HQ claims
 * 127.0.0.1/32, Beta's Branch 127.0.0.3/32; 127.0.1.1 is claimed by nobody. `gambling.example` is
 * blocked for Acme (answered by the resolver, no upstream).
 */
describe.each(testDialects())('UDP limits of claimed and unclaimed sources (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let changes: ChangeFeed;
  let upstream: FakeUpstream;
  /** The defaults: RRL 200/s per /24, 5,000/s per claimed location. */
  let defaults: RunningResolver;
  /** A low per-location limit (50/s) and a low RRL (20/s), slip 2. */
  let low: RunningResolver;

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    await seedTenants(handle);
    changes = createChangeFeed(handle);
    await changes.start();
    upstream = await startFakeUpstream();
    const common = {
      db: handle,
      changes,
      logger: pino({ level: 'silent' }),
      dns: { host: '127.0.0.1', port: 0 },
      upstreams: [{ host: '127.0.0.1', port: upstream.port }],
      blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
      queryLog: { flushMs: 50 },
      upstreamTimeoutMs: 500,
    };
    defaults = await startResolver(common);
    low = await startResolver({ ...common, rrl: { ratePerSecond: 20, slip: 2 }, locationRate: 50 });
  });

  afterAll(async () => {
    await defaults?.close();
    await low?.close();
    await changes?.close();
    await upstream?.close();
    await handle?.close();
  });

  it('answers every query of a claimed location far above the per-/24 RRL rate (2,000 from one address)', async () => {
    const port = defaults.address.udp.port;
    const before = defaults.metrics;
    const r = await burst(port, '127.0.0.1', 2000, (id) => query(id, 'gambling.example', 'A'));
    expect(r.full).toBe(2000);
    expect(r.truncated).toBe(0);
    // Well above 200 a second: RRL would have limited most of them.
    expect(r.ms).toBeLessThan(5000);
    expect(2000 / (r.ms / 1000)).toBeGreaterThan(200);
    const after = defaults.metrics;
    expect(after.rateLimited - before.rateLimited).toBe(0);
    expect(after.locationLimited - before.locationLimited).toBe(0);
  });

  it('still limits an unclaimed source at the RRL rate', async () => {
    const port = defaults.address.udp.port;
    const before = defaults.metrics.rateLimited;
    const r = await burst(port, '127.0.1.1', 1000, (id) => query(id, 'gambling.example', 'A'));
    // 200 of burst plus the refill while sending; the rest dropped or slipped.
    expect(r.full).toBeGreaterThanOrEqual(200);
    expect(r.full).toBeLessThan(1000);
    expect(defaults.metrics.rateLimited - before).toBe(1000 - r.full);
  });

  it('applies the per-location limit when set low, to that location alone', async () => {
    const port = low.address.udp.port;
    const before = low.metrics;
    const r = await burst(port, '127.0.0.1', 200, (id) => query(id, 'gambling.example', 'A'), 200);
    expect(r.full).toBeGreaterThanOrEqual(50);
    expect(r.full).toBeLessThan(100);
    const after = low.metrics;
    expect(after.locationLimited - before.locationLimited).toBe(200 - r.full);
    // Every second limited query slips (TC=1), as RRL's do.
    expect(r.truncated).toBe(Math.floor((200 - r.full) / 2));
    expect(after.rateLimited - before.rateLimited).toBe(0);
    // Another location (Beta's 127.0.0.3) has its own bucket.
    const other = await burst(port, '127.0.0.3', 40, (id) => query(id, 'gambling.example', 'A'));
    expect(other.full).toBe(40);
  });

  it('applies RRL to amplifying answers (ANY) of a claimed source', async () => {
    const port = defaults.address.udp.port;
    const before = defaults.metrics;
    const r = await burst(port, '127.0.0.1', 1000, (id) => query(id, 'example.com', 'ANY'));
    // RRL 200/s for 127.0.0.0/24 (not charged by the A queries above): about 200 answered.
    expect(r.full).toBeGreaterThanOrEqual(200);
    expect(r.full).toBeLessThan(1000);
    const after = defaults.metrics;
    expect(after.rateLimited - before.rateLimited).toBe(1000 - r.full);
    expect(after.locationLimited - before.locationLimited).toBe(0);
  });
});
