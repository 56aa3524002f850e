import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { threadId } from 'node:worker_threads';
import type { DatabaseHandle, Dialect } from '@cordon/db';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type Dialect as KyselyDialect,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type UnknownRow,
} from 'kysely';

/**
 * The resolver's last good snapshot on disk (docs/operations.md "Fleet"): for each part, the SQL
 * its last full load ran and the rows each statement returned. Replaying the part's own loader over
 * those rows rebuilds exactly the value it built then, so nothing of the in-memory structures needs
 * a serial form of its own, and a loader changed by an upgrade is detected (its SQL no longer
 * matches) instead of misread.
 *
 * One file per part, `<dir>/<part>.snap`: a JSON header line, then per statement its sequence
 * number (the order it was asked), its SQL and its rows (`v8.serialize`), length-prefixed, then an
 * end marker. Each result is written as it arrives (a paged read of a million rows holds one page),
 * to a temporary file renamed over the old one when the load succeeds, so a reader sees the old
 * file or the new one, never half of one.
 */

/** One statement of a recorded load: its SQL text and its result rows, serialized. */
export interface RecordedQuery {
  readonly sql: string;
  readonly rows: Buffer;
}

/** What one part's file holds besides its statements. */
export interface SnapshotFileHeader {
  /** File format; a different one is not read. */
  format: 2;
  part: string;
  dialect: Dialect;
  /** When the load it records started, epoch ms. */
  writtenAt: number;
}

const FORMAT = 2;
const END = Buffer.from('CORDON-SNAPSHOT-END\n');
/** Temporary files of loads that never finished (a crash) are removed after this long, ms. */
const STALE_TEMP_MS = 3_600_000;
let tempSeq = 0;

/** A load being recorded into a part's file. */
export interface Recorder {
  /** Runs on the same pool or file as the handle it was made from; never close it. */
  readonly handle: DatabaseHandle;
  /**
   * The load succeeded: completes the file and renames it over the part's file.
   * @returns the file's size, bytes
   * @throws when the file cannot be written (the old one stays)
   */
  commit(): Promise<number>;
  /** The load failed: removes the temporary file. Never rejects. */
  abort(): Promise<void>;
}

const u32 = (n: number) => {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n);
  return b;
};

/**
 * Wraps `handle` so that every statement run through it is recorded, with its rows, into a new file
 * of `part` in `dir` (created 0700 when missing; the file is 0600). Each result waits for its write,
 * so a fast database cannot pile results up in memory. Shares the handle's connections.
 */
export function recordingHandle(handle: DatabaseHandle, dir: string, part: string): Recorder {
  const file = partFile(dir, part);
  // Unique per load: loads of one part may overlap (a change and the debounced re-read), and
  // data-plane threads or processes may share a directory; the last rename wins, whole.
  const temp = `${file}.${process.pid}-${threadId}-${++tempSeq}.tmp`;
  const writtenAt = Date.now();
  let seq = 0;
  let size = 0;
  let failed: unknown = null;
  const ids = new WeakMap<QueryId, { seq: number; sql: string }>();
  const executor = handle.db.getExecutor();
  const opened = (async () => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const fh = await open(temp, 'w', 0o600);
    const head = Buffer.from(`${JSON.stringify({ format: FORMAT, part, dialect: handle.dialect, writtenAt })}\n`);
    await fh.write(head);
    size += head.length;
    return fh;
  })();
  opened.catch(() => undefined);
  let chain: Promise<unknown> = opened;
  const append = (parts: Buffer[]) => {
    chain = chain.then(async () => {
      const fh = await opened;
      for (const b of parts) {
        await fh.write(b);
        size += b.length;
      }
    });
    chain.catch((err: unknown) => {
      failed ??= err;
    });
    return chain;
  };
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      ids.set(args.queryId, { seq: seq++, sql: executor.compileQuery(args.node, args.queryId).sql });
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      const q = ids.get(args.queryId);
      if (q && failed === null) {
        const text = Buffer.from(q.sql);
        const rows = serialize(args.result.rows);
        // A failed write fails the file (commit throws), never the load.
        await append([u32(q.seq), u32(text.length), text, u32(rows.length), rows]).catch(() => undefined);
      }
      return args.result;
    },
  };
  const discard = async () => {
    const fh = await opened.catch(() => null);
    await fh?.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
  };
  return {
    handle: { ...handle, db: handle.db.withPlugin(plugin), close: async () => undefined },
    async commit() {
      await append([END]).catch(() => undefined);
      if (failed !== null) {
        await discard();
        throw failed;
      }
      const fh = await opened;
      try {
        await fh.sync();
        await fh.close();
      } catch (err) {
        await discard();
        throw err;
      }
      await rename(temp, file);
      return size;
    },
    abort: discard,
  };
}

/** Removes temporary files older than an hour from `dir` (loads a crash interrupted). Never rejects. */
export async function removeStaleTemps(dir: string, now = Date.now()): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.endsWith('.tmp')) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info && now - info.mtimeMs > STALE_TEMP_MS) await rm(path, { force: true }).catch(() => undefined);
  }
}

/** The file of `part` in `dir`. */
export function partFile(dir: string, part: string): string {
  return join(dir, `${part}.snap`);
}

/** One part's file as read back. */
export interface PartFile {
  header: SnapshotFileHeader;
  queries: RecordedQuery[];
}

/**
 * Reads `<dir>/<part>.snap`, its statements in the order they were asked; null when there is none.
 * @throws when the file is unreadable, truncated or of another format
 */
export async function readPartFile(dir: string, part: string): Promise<PartFile | null> {
  const path = partFile(dir, part);
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const nl = data.indexOf(0x0a);
  if (nl < 0) throw new Error(`${path}: no header`);
  const header = JSON.parse(data.subarray(0, nl).toString('utf8')) as SnapshotFileHeader;
  if (header.format !== FORMAT || header.part !== part) {
    throw new Error(`${path}: format ${header.format} of part ${header.part}, expected ${FORMAT} of ${part}`);
  }
  if (data.length < END.length || !data.subarray(data.length - END.length).equals(END)) {
    throw new Error(`${path}: truncated`);
  }
  const end = data.length - END.length;
  let at = nl + 1;
  const int = () => {
    if (at + 4 > end) throw new Error(`${path}: truncated`);
    const n = data.readUInt32BE(at);
    at += 4;
    return n;
  };
  const bytes = (n: number) => {
    if (at + n > end) throw new Error(`${path}: truncated`);
    const slice = data.subarray(at, at + n);
    at += n;
    return slice;
  };
  const records: Array<RecordedQuery & { seq: number }> = [];
  while (at < end) {
    const seq = int();
    const sql = bytes(int()).toString('utf8');
    records.push({ seq, sql, rows: bytes(int()) });
  }
  records.sort((x, y) => x.seq - y.seq);
  return { header, queries: records.map(({ sql, rows }) => ({ sql, rows })) };
}

/**
 * A read-only handle that answers the statements of a recorded load with their recorded rows: a
 * statement takes the first unused recording of the same SQL (parameters aside: a load that asks
 * "not yet expired" at another `now` still gets its rows), so the part's loader, run on it,
 * rebuilds the value it built when the file was written.
 * Rejects a statement with no recording left (the loader changed since the file was written).
 */
export function replayHandle(dialect: Dialect, queries: readonly RecordedQuery[], location: string): DatabaseHandle {
  const used = new Array<boolean>(queries.length).fill(false);
  const connection: DatabaseConnection = {
    async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
      for (let i = 0; i < queries.length; i++) {
        if (!used[i] && queries[i]!.sql === compiled.sql) {
          used[i] = true;
          return { rows: deserialize(queries[i]!.rows) as R[] };
        }
      }
      throw new Error(`the snapshot on disk has no rows for: ${compiled.sql.slice(0, 120)}`);
    },
    // biome-ignore lint/correctness/useYield: never streams; the loaders page with LIMIT instead.
    async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
      throw new Error('the snapshot on disk does not stream');
    },
  };
  const driver: Driver = {
    init: async () => undefined,
    acquireConnection: async () => connection,
    beginTransaction: async () => undefined,
    commitTransaction: async () => undefined,
    rollbackTransaction: async () => undefined,
    releaseConnection: async () => undefined,
    destroy: async () => undefined,
  };
  const kysely: KyselyDialect =
    dialect === 'postgres'
      ? {
          createAdapter: () => new PostgresAdapter(),
          createDriver: () => driver,
          createIntrospector: (db) => new PostgresIntrospector(db),
          createQueryCompiler: () => new PostgresQueryCompiler(),
        }
      : {
          createAdapter: () => new SqliteAdapter(),
          createDriver: () => driver,
          createIntrospector: (db) => new SqliteIntrospector(db),
          createQueryCompiler: () => new SqliteQueryCompiler(),
        };
  const db = new Kysely<never>({ dialect: kysely }) as unknown as DatabaseHandle['db'];
  return { db, dialect, location, close: () => db.destroy() };
}
