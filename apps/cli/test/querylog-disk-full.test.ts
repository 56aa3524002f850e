/**
 * A full disk under the query log (issue 30; docs/operations.md "A full disk"; docs/security.md
 * "Durability"): the data plane, as `cordon serve` runs it on its own thread, answers DNS over
 * loopback UDP while its query-log writer thread cannot grow the SQLite file — `PRAGMA
 * max_page_count` on the writer's connection makes every insert fail with `SQLITE_FULL`, as a full
 * disk does, with no mount or root needed. Meanwhile every query is answered, the writer keeps its
 * rows (retried, the backlog beyond memory spooled, none dropped or failed); once space returns (the
 * test frees pages in the file) every row arrives, the spool drains and `PRAGMA integrity_check` is
 * ok.
 */
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '@cordon/db';
import { startDataPlane } from '@cordon/resolver/dataplane';
import dnsPacket from 'dns-packet';
import { sql } from 'kysely';
import pino from 'pino';
import { expect, it } from 'vitest';
import { startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';
import { seedTenants } from '../../resolver/test/helpers/seed.ts';

/** Queries asked while the disk is full, and after. */
const WHILE_FULL = 400;
const AFTER = 100;
/** The fake upstream's A answer. */
const UPSTREAM_ANSWER = '192.0.2.10';

/** One A query from 127.0.0.1 (the seeded customer's location); @returns the first A record, '' with none within 1 s. */
async function askA(port: number, name: string): Promise<string> {
  const socket = dgram.createSocket('udp4');
  try {
    return await new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve(''), 1000);
      socket.once('message', (msg) => {
        clearTimeout(timer);
        const a = (dnsPacket.decode(msg).answers ?? []).find((r) => r.type === 'A');
        resolve(a?.type === 'A' ? a.data : '');
      });
      socket.send(
        dnsPacket.encode({
          type: 'query',
          id: randomBytes(2).readUInt16BE(0),
          flags: dnsPacket.RECURSION_DESIRED,
          questions: [{ type: 'A', name, class: 'IN' }],
        }),
        port,
        '127.0.0.1',
      );
    });
  } finally {
    socket.close();
  }
}

/** Query-log rows of names starting with `prefix`. */
async function logged(handle: DatabaseHandle, prefix: string): Promise<number> {
  const r = await handle.db
    .selectFrom('query_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('qname', 'like', `${prefix}%`)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

it('answers DNS while the query log cannot grow its file, keeps every row, and writes them once space returns', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-disk-full-'));
  const sqlitePath = join(dir, 'cordon.sqlite');
  const spoolDir = join(dir, 'querylog-spool');
  const handle = openDatabase({ sqlitePath });
  await migrateToLatest(handle);
  await seedTenants(handle);
  // 4 MiB of filler, then no free page: the writer's limit is the file as it is now. Deleting the
  // filler later frees its pages inside the file, which is what "space returns" is here.
  await sql`create table disk_filler (b blob)`.execute(handle.db);
  await sql`vacuum`.execute(handle.db);
  await sql`insert into disk_filler (b)
    with recursive n(i) as (select 1 union all select i + 1 from n where i < 1024) select randomblob(4096) from n`.execute(
    handle.db,
  );
  const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(handle.db)).rows[0]!.page_count;
  expect(
    (await sql<{ freelist_count: number }>`pragma freelist_count`.execute(handle.db)).rows[0]!.freelist_count,
  ).toBe(0);

  const upstream = await startFakeUpstream();
  const plane = await startDataPlane({
    connection: { sqlitePath },
    logger: pino({ level: 'silent' }),
    resolver: {
      dns: { host: '127.0.0.1', port: 0 },
      upstreams: [{ host: '127.0.0.1', port: upstream.port }],
      blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
      // Small batches and memory bound, so the backlog of a few hundred queries reaches the spool.
      queryLog: {
        connection: { sqlitePath, sqliteMaxPageCount: pages },
        spoolDir,
        batchSize: 20,
        flushMs: 20,
        maxBuffer: 100,
        idleWriter: false,
      },
    },
  });
  const port = plane.dns?.udp.port ?? 0;
  const queryLog = async () => (await plane.metrics())!.queryLog;
  try {
    // Full: every query answered, the backlog beyond memory spooled.
    const answers: string[] = [];
    for (let i = 0; i < WHILE_FULL; i++) {
      answers.push(await askA(port, `full-${i}.example`));
      if (i % 20 === 19) await new Promise((r) => setTimeout(r, 25));
    }
    expect(answers.filter((a) => a !== UPSTREAM_ANSWER)).toEqual([]);
    await expect.poll(async () => (await queryLog()).spooled, { timeout: 10_000 }).toBeGreaterThan(0);
    // What fit in the file's last pages was written; the rest waits, in memory and in the spool.
    const during = await queryLog();
    const fitted = await logged(handle, 'full-');
    expect(fitted).toBeLessThan(WHILE_FULL / 4);
    expect(during).toMatchObject({ written: fitted, dropped: 0, failedBatches: 0 });
    expect(readdirSync(spoolDir).some((f) => f.endsWith('.spool'))).toBe(true);

    // Space returns: the writer's next retry (backoff ≤ 5 s) writes the rows that waited, spooled ones included.
    await sql`delete from disk_filler`.execute(handle.db);
    await expect.poll(() => logged(handle, 'full-'), { timeout: 20_000, interval: 200 }).toBe(WHILE_FULL);
    for (let i = 0; i < AFTER; i++) expect(await askA(port, `after-${i}.example`)).toBe(UPSTREAM_ANSWER);
    await expect.poll(() => logged(handle, 'after-'), { timeout: 10_000, interval: 100 }).toBe(AFTER);
    // Each row once: the spooled frames were not written twice.
    const distinct = await sql<{
      n: number;
    }>`select count(distinct qname) as n from query_log where qname like 'full-%'`.execute(handle.db);
    expect(distinct.rows[0]!.n).toBe(WHILE_FULL);
    expect(await queryLog()).toMatchObject({ dropped: 0, failedBatches: 0 });
    expect((await queryLog()).written).toBeGreaterThanOrEqual(WHILE_FULL + AFTER);
    await expect.poll(() => readdirSync(spoolDir).filter((f) => f.endsWith('.spool')), { timeout: 5_000 }).toEqual([]);
  } finally {
    await Promise.race([plane.close(), new Promise((r) => setTimeout(r, 10_000))]);
    await upstream.close();
  }
  try {
    const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(handle.db);
    expect(check.rows.map((r) => r.integrity_check)).toEqual(['ok']);
  } finally {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);
