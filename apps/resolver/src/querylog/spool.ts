/**
 * The query-log spool (docs/decisions.md "Query-log spool"): when more rows wait for the writer
 * thread than the resolver holds in memory (`maxBuffer`), the resolving thread appends each further
 * batch to a file in the spool directory instead of dropping it, and tells the writer thread where;
 * the writer inserts the spooled batches in their turn, records how far it got, and deletes a file
 * once every batch of it is in the database. Appending a batch costs the resolving thread one
 * `writev` of about 200 KB (the batch's numbers and qnames as they are in memory), so at a saturating
 * rate answering keeps the core and the log is written when the core has time.
 *
 * File format: frames, one per batch. A frame is a 20-byte header — the bytes `CQL3`, then
 * little-endian u32 row count, u32 byte length of the numbers, u32 byte length of the dictionary,
 * u32 byte length of the qnames — then `count × NUMS` float64 (little-endian, querylog/batch.ts),
 * the dictionary as UTF-8 JSON, and the joined qnames as UTF-16LE: a copy of the string's own
 * two-byte form that keeps the separator, a lone surrogate, which UTF-8 cannot (and which JSON would
 * escape character by character: 2 % of the resolving thread at saturation, bench/README.md). A
 * frame cut short (the process died while appending) ends the file. Frames of the previous release
 * (`CQL2`: 17 numbers a row, no `matched_name`), left over by a resolver upgraded with its spool
 * not yet drained, are still read: their rows get an empty `matched_name` (migration 0036).
 *
 * Files are named `<run>-<seq>.spool`; `<run>` is new for every start of the sink, so files of an
 * earlier run are leftovers, imported before anything else. `<file>.done` holds the byte offset up
 * to which the writer has committed the file's frames: a crash between a commit and that note
 * inserts at most the last committed range again (at least once, never lost).
 *
 * One process owns a directory at a time ({@link claimSpoolDir}: `owner.pid`): a second resolver
 * started on the same data directory would otherwise take the first one's live files for leftovers.
 */
import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
  writevSync,
} from 'node:fs';
import { join } from 'node:path';
import { NUMS, type ToWriter } from './batch.ts';

/** A `rows` message as framed in the spool. */
export type RowsMessage = Extract<ToWriter, { kind: 'rows' }>;

const MAGIC = 0x334c5143; // 'CQL3' read as a little-endian u32
/** The previous release's frames: {@link NUMS_V2} numbers a row, no `matched_name`. */
const MAGIC_V2 = 0x324c5143; // 'CQL2'
const NUMS_V2 = 17;
const HEADER_BYTES = 20;
/** The largest frame accepted when reading: a 1,000-row batch is ≈ 200 KB. */
const MAX_FRAME_BYTES = 64 << 20;

/** The header, numbers, dictionary and qnames of `msg` as one frame (see the module comment). */
export function encodeFrame(msg: RowsMessage): Buffer[] {
  const numsBytes = msg.count * NUMS * 8;
  const dict = Buffer.from(JSON.stringify(msg.dict), 'utf8');
  const qnames = Buffer.from(msg.qnames, 'utf16le');
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(msg.count, 4);
  header.writeUInt32LE(numsBytes, 8);
  header.writeUInt32LE(dict.length, 12);
  header.writeUInt32LE(qnames.length, 16);
  // Float64Array memory is little-endian on every platform Node runs on (x86-64, arm64).
  return [header, Buffer.from(msg.nums.buffer, msg.nums.byteOffset, numsBytes), dict, qnames];
}

/**
 * The `rows` messages of the frames in `bytes` (a file's content from a frame boundary) and how many
 * bytes they span; a frame cut short ends the list.
 * @throws Error when a complete frame is malformed (wrong magic, sizes that do not agree)
 */
export function decodeFrames(bytes: Buffer): { messages: RowsMessage[]; used: number } {
  const messages: RowsMessage[] = [];
  let at = 0;
  while (bytes.length - at >= HEADER_BYTES) {
    const magic = bytes.readUInt32LE(at);
    if (magic !== MAGIC && magic !== MAGIC_V2) throw new Error(`query-log spool: no frame at byte ${at}`);
    const width = magic === MAGIC ? NUMS : NUMS_V2;
    const count = bytes.readUInt32LE(at + 4);
    const numsBytes = bytes.readUInt32LE(at + 8);
    const dictBytes = bytes.readUInt32LE(at + 12);
    const qnamesBytes = bytes.readUInt32LE(at + 16);
    if (
      numsBytes !== count * width * 8 ||
      qnamesBytes % 2 !== 0 ||
      numsBytes + dictBytes + qnamesBytes > MAX_FRAME_BYTES
    ) {
      throw new Error(`query-log spool: frame at byte ${at} has inconsistent sizes`);
    }
    const numsAt = at + HEADER_BYTES;
    const dictAt = numsAt + numsBytes;
    const qnamesAt = dictAt + dictBytes;
    const end = qnamesAt + qnamesBytes;
    if (end > bytes.length) break;
    const framed = new Float64Array(count * width);
    new Uint8Array(framed.buffer).set(bytes.subarray(numsAt, dictAt));
    const dict = JSON.parse(bytes.toString('utf8', dictAt, qnamesAt)) as unknown;
    if (!Array.isArray(dict) || !dict.every((d) => typeof d === 'string')) {
      throw new Error(`query-log spool: frame at byte ${at} has no dictionary`);
    }
    const nums = width === NUMS ? framed : widenV2(framed, count, dict);
    messages.push({ kind: 'rows', count, nums, dict, qnames: bytes.toString('utf16le', qnamesAt, end) });
    at = end;
  }
  return { messages, used: at };
}

/**
 * The numbers of a `CQL2` frame's `count` rows in this release's layout (querylog/batch.ts): each
 * row's 17 numbers, then the code of an empty `matched_name`, added to `dict` when it has none.
 */
function widenV2(framed: Float64Array, count: number, dict: string[]): Float64Array<ArrayBuffer> {
  let empty = dict.indexOf('');
  if (empty < 0) empty = dict.push('') - 1;
  const nums = new Float64Array(count * NUMS);
  for (let row = 0; row < count; row++) {
    nums.set(framed.subarray(row * NUMS_V2, (row + 1) * NUMS_V2), row * NUMS);
    nums[row * NUMS + NUMS_V2] = empty;
  }
  return nums;
}

/** A range of frames appended to a spool file. */
export interface SpoolRange {
  file: string;
  offset: number;
  length: number;
}

/**
 * Appends frames to the spool directory's current file (resolving thread). Not thread-safe; one
 * instance per directory and process.
 */
export class SpoolAppender {
  private fd: number | null = null;
  private file = '';
  private size = 0;
  private seq = 0;
  /** Bytes in files written by this appender and not yet deleted by the writer. */
  pendingBytes = 0;

  /**
   * @param dir the spool directory (created by the caller)
   * @param run this run's file-name prefix (see the module comment)
   * @param maxFileBytes a file is closed and a new one started beyond this size
   */
  constructor(
    readonly dir: string,
    readonly run: string,
    private readonly maxFileBytes = 64 << 20,
  ) {}

  /** The file being appended to, or null. */
  get current(): string | null {
    return this.fd === null ? null : this.file;
  }

  /** Whether the current file has reached its size: the caller ends it (and announces that) first. */
  get full(): boolean {
    return this.fd !== null && this.size >= this.maxFileBytes;
  }

  /**
   * Appends `msg` as one frame to the current file (a new one when none is open).
   * @returns where the frame was written
   * @throws the `fs` error (`ENOSPC`…) when the frame cannot be written; the file stays open with
   *   whatever part was written past its announced frames (never read: the caller ends the file)
   */
  append(msg: RowsMessage): SpoolRange {
    if (this.fd === null) {
      this.file = join(this.dir, `${this.run}-${String(++this.seq).padStart(6, '0')}.spool`);
      this.fd = openSync(this.file, 'a');
      this.size = 0;
    }
    const parts = encodeFrame(msg);
    let length = 0;
    for (const p of parts) length += p.length;
    let written = writevSync(this.fd, parts);
    // A short write (rare: a signal, a full disk) is finished or fails here.
    while (written < length) written += writevSync(this.fd, [Buffer.concat(parts).subarray(written)]);
    const range = { file: this.file, offset: this.size, length };
    this.size += length;
    this.pendingBytes += length;
    return range;
  }

  /** Closes the current file; @returns its path (to announce as ended), or null when none was open. */
  end(): string | null {
    if (this.fd === null) return null;
    closeSync(this.fd);
    this.fd = null;
    return this.file;
  }
}

/**
 * The spool files of earlier runs in `dir` (not named after `run`), oldest first, each with the
 * offset its `.done` note gives (0 without one) and its size.
 */
export function leftoverSpoolFiles(dir: string, run: string): SpoolRange[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: SpoolRange[] = [];
  for (const name of names.filter((n) => n.endsWith('.spool') && !n.startsWith(`${run}-`)).sort()) {
    const file = join(dir, name);
    const size = statSync(file).size;
    const offset = Math.min(readDoneOffset(file), size);
    out.push({ file, offset, length: size - offset });
  }
  return out;
}

/** The committed offset a file's `.done` note holds, 0 when there is none or it is unreadable. */
export function readDoneOffset(file: string): number {
  try {
    const n = Number(readFileSync(`${file}.done`, 'utf8'));
    return Number.isSafeInteger(n) && n >= 0 ? n : 0;
  } catch {
    return 0;
  }
}

/**
 * Reads `range` of a spool file. @returns the bytes, possibly fewer than asked when the file is
 * shorter. @throws the `fs` error when the file cannot be read
 */
export function readSpoolRange(range: SpoolRange): Buffer {
  const fd = openSync(range.file, 'r');
  try {
    const buf = Buffer.allocUnsafe(range.length);
    let got = 0;
    while (got < range.length) {
      const n = readSync(fd, buf, got, range.length - got, range.offset + got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** The file that names the process owning a spool directory. */
export const SPOOL_OWNER_FILE = 'owner.pid';

/**
 * Makes this process the owner of spool directory `dir` (which must exist): creates `owner.pid`
 * with this process's id, or takes it over when the process it names no longer runs (a crash).
 * @returns `{ owner: null }` when claimed, else `{ owner: pid }` of the running process that holds it
 *   (this process too, when another writer of it holds the directory)
 * @throws the `fs` error when the file cannot be written or read
 */
export function claimSpoolDir(dir: string): { owner: number | null } {
  const file = join(dir, SPOOL_OWNER_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return { owner: null };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const pid = Number(readFileSync(file, 'utf8'));
    if (Number.isSafeInteger(pid) && pid > 0 && processRuns(pid)) return { owner: pid };
    rmSync(file, { force: true }); // its process is gone: the directory's files are leftovers now
  }
  throw new Error(`query-log spool: cannot claim ${dir}`);
}

/** Gives up the ownership {@link claimSpoolDir} took (only when this process holds it). */
export function releaseSpoolDir(dir: string): void {
  const file = join(dir, SPOOL_OWNER_FILE);
  try {
    if (Number(readFileSync(file, 'utf8')) === process.pid) rmSync(file, { force: true });
  } catch {
    // already gone
  }
}

/** Whether a process with id `pid` runs on this host (signal 0 probes without sending). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
