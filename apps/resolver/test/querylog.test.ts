import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DatabaseHandle, migrateToLatest, type OpenDatabaseOptions, openDatabase } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { loadSchedIdle } from '@cordon/udp-batch';
import { sql } from 'kysely';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BatchBuilder } from '../src/querylog/batch.ts';
import { SPOOL_OWNER_FILE, SpoolAppender } from '../src/querylog/spool.ts';
import { openQueryLog, QueryLogWorkerWriter } from '../src/querylog/threaded.ts';
import { type QueryLogOptions, type QueryLogRow, QueryLogWriter } from '../src/querylog/writer.ts';

const row = (i: number): QueryLogRow => ({
  ts: 1_700_000_000_000 + i,
  customer_id: 1,
  location_id: 1,
  policy_id: 1,
  client_ip: '127.0.0.1',
  qname: `q${i}.example`,
  qtype: 'A',
  protocol: 'udp',
  action: 'allowed',
  reason: 'default',
  categories: '',
  rcode: 'NOERROR',
  answer_source: 'upstream',
  latency_us: 10,
});

const schedIdleBuilt = loadSchedIdle() !== null;

/** The spool's data files in `dir` (not its owner file). */
const spoolFiles = (dir: string) => readdirSync(dir).filter((f) => f !== SPOOL_OWNER_FILE);

/** The threads of this process at SCHED_IDLE (policy 5 in /proc/self/task/<tid>/sched), by id. */
function idleThreads(): Set<string> {
  const ids = new Set<string>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      if (/^policy\s*:\s*5$/m.test(readFileSync(`/proc/self/task/${tid}/sched`, 'utf8'))) ids.add(tid);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ids;
}

/** The SCHED_IDLE threads now that were not in `before` (threads that ended meanwhile do not count). */
/** A logger at level error whose messages land in `errors`, in order. */
function errorLog() {
  const errors: string[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line).msg) });
  return { errors, logger };
}

const newIdleThreads = (before: Set<string>) => [...idleThreads()].filter((tid) => !before.has(tid));

describe('QueryLogWriter', () => {
  it('drops and counts rows beyond maxBuffer while a flush is in flight, and close() flushes the rest', async () => {
    const handle = await createTestDatabase('sqlite');
    const writer = new QueryLogWriter(handle, pino({ level: 'silent' }), {
      batchSize: 100,
      flushMs: 60_000,
      maxBuffer: 250,
    });
    let accepted = 0;
    // The 100th push starts a flush that takes its batch at once and then awaits the INSERT; the
    // synchronous pushes after it refill the buffer to maxBuffer (250) and the last 50 are dropped.
    for (let i = 0; i < 400; i++) if (writer.push(row(i))) accepted++;
    expect(accepted).toBe(350);
    expect(writer.stats.dropped).toBe(50);
    // In memory: the 250 buffered and the 100 the INSERT under way took.
    expect(writer.stats.queued).toBe(350);
    await writer.close();
    expect(writer.stats.queued).toBe(0);
    const n = await handle.db
      .selectFrom('query_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(350);
    expect(writer.stats.written).toBe(350);
    await handle.close();
  });

  it('counts a failed batch as dropped instead of throwing', async () => {
    const handle = await createTestDatabase('sqlite');
    const writer = new QueryLogWriter(handle, pino({ level: 'silent' }), { flushMs: 60_000 });
    await handle.close();
    writer.push(row(1));
    await writer.close();
    expect(writer.stats.failedBatches).toBe(1);
    expect(writer.stats.dropped).toBe(1);
  });
});

describe.each(testDialects())('QueryLogWorkerWriter (%s)', (dialect) => {
  /** A migrated database the writer thread can open too: a SQLite file, or a PostgreSQL test schema. */
  async function database(): Promise<{
    handle: DatabaseHandle;
    connection: OpenDatabaseOptions;
    done(): Promise<void>;
  }> {
    if (dialect === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'cordon-qlog-'));
      const sqlitePath = join(dir, 'q.sqlite');
      const handle = openDatabase({ sqlitePath });
      await migrateToLatest(handle);
      return {
        handle,
        connection: { sqlitePath },
        done: async () => {
          await handle.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    const handle = await createTestDatabase('postgres');
    const { rows } = await sql<{ s: string }>`select current_schema() as s`.execute(handle.db);
    const connection = { url: process.env.CORDON_TEST_DATABASE_URL!, pgSchema: rows[0]!.s };
    return { handle, connection, done: () => handle.close() };
  }
  const count = async (handle: DatabaseHandle) =>
    Number(
      (
        await handle.db
          .selectFrom('query_log')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** A writer with 100-row batches, 250 rows in memory at most and a fresh spool directory. */
  function spoolingWriter(
    db: { connection: OpenDatabaseOptions },
    opts: Partial<QueryLogOptions> = {},
    logger = pino({ level: 'silent' }),
  ) {
    const spoolDir = mkdtempSync(join(tmpdir(), 'cordon-qlog-spool-'));
    const writer = new QueryLogWorkerWriter(db.connection, logger, {
      batchSize: 100,
      flushMs: 60_000,
      maxBuffer: 250,
      spoolDir,
      ...opts,
    });
    return { writer, spoolDir };
  }
  const qnamesById = async (handle: DatabaseHandle) =>
    (await handle.db.selectFrom('query_log').select('qname').orderBy('id').execute()).map((r) => r.qname);

  it('writes every row on its own thread and connection; close() flushes the partial batch', async () => {
    const db = await database();
    const writer = new QueryLogWorkerWriter(db.connection, pino({ level: 'silent' }), {
      batchSize: 100,
      flushMs: 60_000,
    });
    for (let i = 0; i < 1234; i++) expect(writer.push(row(i))).toBe(true);
    await writer.flush();
    expect(writer.stats.written).toBe(1234);
    writer.push({ ...row(9999), location_id: null, policy_id: null, categories: '6,20' });
    await writer.close();
    expect({ ...writer.stats }).toEqual({
      written: 1235,
      dropped: 0,
      failedBatches: 0,
      spooled: 0,
      queued: 0,
      spoolBytes: 0,
    });
    expect(await count(db.handle)).toBe(1235);
    const last = await db.handle.db
      .selectFrom('query_log')
      .selectAll()
      .where('qname', '=', 'q9999.example')
      .executeTakeFirstOrThrow();
    expect(last).toMatchObject({ ...row(9999), location_id: null, policy_id: null, categories: '6,20' });
    expect(writer.push(row(1))).toBe(false);
    await db.done();
  });

  it('drops and counts rows beyond maxBuffer (buffered plus not yet acknowledged)', async () => {
    const db = await database();
    const writer = new QueryLogWorkerWriter(db.connection, pino({ level: 'silent' }), {
      batchSize: 100,
      flushMs: 60_000,
      maxBuffer: 250,
    });
    let accepted = 0;
    // No acknowledgement can arrive during a synchronous loop: 250 rows are in flight or buffered.
    for (let i = 0; i < 400; i++) if (writer.push(row(i))) accepted++;
    expect(accepted).toBe(250);
    expect(writer.stats.dropped).toBe(150);
    await writer.close();
    expect(writer.stats.written).toBe(250);
    expect(await count(db.handle)).toBe(250);
    await db.done();
  });

  it('spools the batches beyond maxBuffer instead of dropping them, writes every row in order, and empties the spool', async () => {
    const db = await database();
    const { writer, spoolDir } = spoolingWriter(db);
    // No acknowledgement can arrive during a synchronous loop: 2 batches go to memory, 18 to the spool.
    for (let i = 0; i < 2000; i++) expect(writer.push(row(i))).toBe(true);
    expect(writer.stats).toMatchObject({ dropped: 0, spooled: 1800, queued: 200 });
    const spoolFile = readdirSync(spoolDir).filter((f) => f.endsWith('.spool'));
    expect(spoolFile).toHaveLength(1);
    expect(writer.stats.spoolBytes).toBe(statSync(join(spoolDir, spoolFile[0]!)).size);
    await writer.flush();
    expect({ ...writer.stats }).toEqual({
      written: 2000,
      dropped: 0,
      failedBatches: 0,
      spooled: 1800,
      queued: 0,
      spoolBytes: 0,
    });
    expect(spoolFiles(spoolDir)).toEqual([]);
    expect(await qnamesById(db.handle)).toEqual(Array.from({ length: 2000 }, (_, i) => `q${i}.example`));
    await writer.close();
    rmSync(spoolDir, { recursive: true, force: true });
    await db.done();
  });

  it('drops and counts the rows beyond maxBuffer once the spool holds maxSpoolBytes', async () => {
    const db = await database();
    const { writer, spoolDir } = spoolingWriter(db, { maxSpoolBytes: 1 });
    for (let i = 0; i < 600; i++) writer.push(row(i));
    // 200 in memory, one batch spooled (the spool was empty), the next three dropped.
    expect(writer.stats).toMatchObject({ dropped: 300, spooled: 100 });
    await writer.close();
    expect(writer.stats).toMatchObject({ written: 300, dropped: 300 });
    expect(await count(db.handle)).toBe(300);
    rmSync(spoolDir, { recursive: true, force: true });
    await db.done();
  });

  it('drops and counts, without failing, the batches the spool cannot take, and spools again once it can', async () => {
    const db = await database();
    const { errors, logger } = errorLog();
    const { writer, spoolDir } = spoolingWriter(db, {}, logger);
    rmSync(spoolDir, { recursive: true }); // the disk went away: nothing can be appended
    for (let i = 0; i < 400; i++) expect(writer.push(row(i))).toBe(true);
    expect(writer.stats).toMatchObject({ dropped: 200, spooled: 0 });
    expect(errors).toEqual(['query-log spool cannot be written; rows dropped']);
    mkdirSync(spoolDir);
    for (let i = 400; i < 600; i++) writer.push(row(i));
    expect(writer.stats).toMatchObject({ dropped: 200, spooled: 200 });
    await writer.flush();
    expect(writer.stats).toMatchObject({ written: 400, dropped: 200, failedBatches: 0 });
    expect(await qnamesById(db.handle)).toEqual([
      ...Array.from({ length: 200 }, (_, i) => `q${i}.example`),
      ...Array.from({ length: 200 }, (_, i) => `q${400 + i}.example`),
    ]);
    expect(spoolFiles(spoolDir)).toEqual([]);
    await writer.close();
    rmSync(spoolDir, { recursive: true, force: true });
    await db.done();
  });

  it('refuses a spool directory another running writer owns, and takes it once that one has closed', async () => {
    const db = await database();
    const { errors, logger } = errorLog();
    const { writer: first, spoolDir } = spoolingWriter(db);
    const second = new QueryLogWorkerWriter(db.connection, logger, {
      batchSize: 100,
      flushMs: 60_000,
      maxBuffer: 250,
      spoolDir,
    });
    expect(errors).toEqual([
      'query-log spool directory is in use by another running resolver; rows beyond the buffer are dropped (give each resolver its own --data-dir)',
    ]);
    for (let i = 0; i < 400; i++) second.push(row(i));
    expect(second.stats).toMatchObject({ dropped: 150, spooled: 0 });
    await second.close();
    await first.close();
    expect(readdirSync(spoolDir)).toEqual([]); // the owner file goes with its writer
    const third = new QueryLogWorkerWriter(db.connection, logger, { batchSize: 100, maxBuffer: 250, spoolDir });
    for (let i = 0; i < 400; i++) third.push(row(1000 + i));
    expect(third.stats).toMatchObject({ dropped: 0, spooled: 200 });
    await third.close();
    expect(third.stats).toMatchObject({ written: 400 });
    expect(errors).toHaveLength(1);
    rmSync(spoolDir, { recursive: true, force: true });
    await db.done();
  });

  it("writes an earlier run's spool files first, from their .done offset, and deletes them", async () => {
    const db = await database();
    const spoolDir = mkdtempSync(join(tmpdir(), 'cordon-qlog-spool-'));
    // What a resolver that died with a backlog left: 3 frames, the first written (its note), then a frame cut short.
    const earlier = new SpoolAppender(spoolDir, '0-earlier');
    const frame = (from: number) => {
      const b = new BatchBuilder(100);
      for (let i = from; i < from + 100; i++) b.add(row(i));
      return b.take();
    };
    const first = earlier.append(frame(0));
    earlier.append(frame(100));
    earlier.append(frame(200));
    earlier.end();
    writeFileSync(`${first.file}.done`, String(first.length));
    const cut = new SpoolAppender(spoolDir, '1-earlier');
    const cutRange = cut.append(frame(300));
    cut.end();
    truncateSync(cutRange.file, cutRange.length - 10);

    const writer = new QueryLogWorkerWriter(db.connection, pino({ level: 'silent' }), { flushMs: 60_000, spoolDir });
    writer.push(row(5000));
    await writer.flush();
    expect(writer.stats).toMatchObject({ written: 201, dropped: 0, failedBatches: 0 });
    expect(await qnamesById(db.handle)).toEqual([
      ...Array.from({ length: 200 }, (_, i) => `q${100 + i}.example`),
      'q5000.example',
    ]);
    expect(spoolFiles(spoolDir)).toEqual([]);
    await writer.close();
    rmSync(spoolDir, { recursive: true, force: true });
    await db.done();
  });

  it.skipIf(!schedIdleBuilt)(
    'writes behind the idle gate from a thread of normal priority, or without the gate when told not to',
    async () => {
      const db = await database();
      const idle = new QueryLogWorkerWriter(db.connection, pino({ level: 'silent' }), { flushMs: 60_000 });
      idle.push(row(1));
      await idle.flush();
      expect(idle.stats.written).toBe(1);
      // One thread of this process at SCHED_IDLE, the gate's (docs/decisions.md "Query-log writes wait
      // for an idle core"); the writer thread itself at SCHED_IDLE would be a second.
      expect(idleThreads().size).toBe(1);
      await idle.close();
      const before = idleThreads();
      const normal = new QueryLogWorkerWriter(db.connection, pino({ level: 'silent' }), {
        flushMs: 60_000,
        idleWriter: false,
      });
      normal.push(row(2));
      await normal.flush();
      expect(normal.stats.written).toBe(1);
      expect(newIdleThreads(before)).toEqual([]);
      await normal.close();
      await db.done();
    },
  );

  it('counts a batch the database rejects as failed and dropped', async () => {
    const db = await database();
    await db.handle.db.schema.dropTable('query_log').execute();
    const writer = new QueryLogWorkerWriter(db.connection, pino({ level: 'silent' }), { flushMs: 60_000 });
    writer.push(row(1));
    writer.push(row(2));
    await writer.close();
    expect({ ...writer.stats }).toEqual({
      written: 0,
      dropped: 2,
      failedBatches: 1,
      spooled: 0,
      queued: 0,
      spoolBytes: 0,
    });
    await db.done();
  });
});

describe('openQueryLog', () => {
  it('uses a writer thread for a SQLite file and the resolving thread for in-memory SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-qlog-'));
    const file = openDatabase({ sqlitePath: join(dir, 'q.sqlite') });
    const memory = await createTestDatabase('sqlite');
    const logger = pino({ level: 'silent' });
    const threaded = openQueryLog(file, logger);
    const inline = openQueryLog(memory, logger);
    const forced = openQueryLog(file, logger, { worker: false });
    expect(threaded).toBeInstanceOf(QueryLogWorkerWriter);
    expect(inline).toBeInstanceOf(QueryLogWriter);
    expect(forced).toBeInstanceOf(QueryLogWriter);
    await Promise.all([threaded.close(), inline.close(), forced.close()]);
    await Promise.all([file.close(), memory.close()]);
    rmSync(dir, { recursive: true, force: true });
  });
});
