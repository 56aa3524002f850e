import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchBuilder, NUMS, readRows } from '../src/querylog/batch.ts';
import {
  claimSpoolDir,
  decodeFrames,
  encodeFrame,
  leftoverSpoolFiles,
  readDoneOffset,
  readSpoolRange,
  releaseSpoolDir,
  SPOOL_OWNER_FILE,
  SpoolAppender,
} from '../src/querylog/spool.ts';
import type { QueryLogRow } from '../src/querylog/writer.ts';

/** A row whose qname is one of a few awkward ones: a lone surrogate, control bytes, non-ASCII. */
const row = (i: number): QueryLogRow => ({
  ts: 1_763_800_000_000 + i,
  customer_id: 1 + (i % 3),
  location_id: i % 4 === 0 ? null : 7,
  policy_id: null,
  client_ip: `10.0.0.${i % 6}`,
  qname: [`q${i}.example`, 'a\u0000b\tc\nd.example', 'bücher.example', '\uDC00lone.example', '"x".example'][i % 5]!,
  qtype: 'A',
  protocol: 'udp',
  action: i % 3 ? 'allowed' : 'blocked',
  reason: 'default',
  categories: i % 3 ? '' : '12,53',
  rcode: 'NOERROR',
  answer_source: 'upstream',
  latency_us: i,
  user_name: i % 2 ? '' : 'dom\\alice',
  matched_name: i % 3 ? '' : `t${i % 2}.cname-target.example`,
});

function batch(from: number, n: number) {
  const b = new BatchBuilder(n);
  for (let i = from; i < from + n; i++) b.add(row(i));
  return b.take();
}
const expected = (from: number, n: number) =>
  Array.from({ length: n }, (_, k) => ({ ...row(from + k), device_id: null, user_id: null, group_id: null }));

const dirs: string[] = [];
function spoolDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-spool-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('query-log spool frames', () => {
  it('carry every row of a batch, odd qnames included, and stop at a frame cut short', () => {
    const a = batch(0, 40);
    const b = batch(40, 25);
    const bytes = Buffer.concat([...encodeFrame(a), ...encodeFrame(b)]);
    const whole = decodeFrames(bytes);
    expect(whole.used).toBe(bytes.length);
    expect(whole.messages.flatMap((m) => readRows(m))).toEqual(expected(0, 65));
    const cut = decodeFrames(bytes.subarray(0, bytes.length - 7));
    expect(cut.messages).toHaveLength(1);
    expect(cut.used).toBe(Buffer.concat(encodeFrame(a)).length);
  });

  it("reads the previous release's frames (CQL2: no matched_name) as rows with an empty matched_name", () => {
    /** `msg` framed as the release before migration 0036 wrote it: 17 numbers a row, magic `CQL2`. */
    const v2Frame = (msg: ReturnType<typeof batch>): Buffer => {
      const old = new Float64Array(msg.count * 17);
      for (let r = 0; r < msg.count; r++) old.set(msg.nums.subarray(r * NUMS, r * NUMS + 17), r * 17);
      const dict = Buffer.from(JSON.stringify(msg.dict), 'utf8');
      const qnames = Buffer.from(msg.qnames, 'utf16le');
      const header = Buffer.alloc(20);
      header.write('CQL2', 0, 'latin1');
      header.writeUInt32LE(msg.count, 4);
      header.writeUInt32LE(old.byteLength, 8);
      header.writeUInt32LE(dict.length, 12);
      header.writeUInt32LE(qnames.length, 16);
      return Buffer.concat([header, Buffer.from(old.buffer), dict, qnames]);
    };
    // Rows 0 and 6: no column of theirs is empty, so the dictionary gains the empty name.
    const b = new BatchBuilder(2);
    b.add(row(0));
    b.add(row(6));
    const noEmpty = b.take();
    expect(noEmpty.dict).not.toContain('');
    const older = batch(0, 30);
    const bytes = Buffer.concat([v2Frame(noEmpty), v2Frame(older), ...encodeFrame(batch(30, 5))]);
    const read = decodeFrames(bytes);
    expect(read.used).toBe(bytes.length);
    expect(read.messages.flatMap((m) => readRows(m))).toEqual([
      ...[0, 6].map((i) => ({ ...expected(i, 1)[0]!, matched_name: '' })),
      ...expected(0, 30).map((r) => ({ ...r, matched_name: '' })),
      ...expected(30, 5),
    ]);
    expect(expected(30, 5)[3]!.matched_name).toBe('t1.cname-target.example');
  });

  it('refuses a complete frame that is malformed', () => {
    const bytes = Buffer.concat(encodeFrame(batch(0, 3)));
    const wrongMagic = Buffer.from(bytes);
    wrongMagic[0] = 0;
    expect(() => decodeFrames(wrongMagic)).toThrow(/no frame at byte 0/);
    const wrongSize = Buffer.from(bytes);
    wrongSize.writeUInt32LE(4, 4); // 4 rows claimed, numbers for 3
    expect(() => decodeFrames(wrongSize)).toThrow(/inconsistent sizes/);
  });
});

describe('SpoolAppender', () => {
  it('appends frames to one file, starts a new one past its size, and reports ranges that read back', () => {
    const dir = spoolDir();
    const spool = new SpoolAppender(dir, 'run1', 6_000);
    const first = spool.append(batch(0, 30));
    expect(spool.full).toBe(false);
    const second = spool.append(batch(30, 30));
    expect(second).toMatchObject({ file: first.file, offset: first.length });
    expect(spool.full).toBe(true); // past 6,000 bytes: the caller ends the file, the next append starts one
    expect(spool.end()).toBe(first.file);
    const third = spool.append(batch(60, 30));
    expect(third.file).not.toBe(first.file);
    expect(third.offset).toBe(0);
    const rows = [first, second, third].flatMap((r) =>
      decodeFrames(readSpoolRange(r)).messages.flatMap((m) => readRows(m)),
    );
    expect(rows).toEqual(expected(0, 90));
    expect(spool.pendingBytes).toBe(first.length + second.length + third.length);
    expect(spool.end()).toBe(third.file);
    expect(spool.end()).toBeNull();
  });

  it("lists an earlier run's files, oldest first, from the offset of their .done note", () => {
    const dir = spoolDir();
    const old = new SpoolAppender(dir, 'a-old');
    const r1 = old.append(batch(0, 10));
    old.append(batch(10, 10));
    old.end();
    writeFileSync(`${r1.file}.done`, String(r1.length));
    const mine = new SpoolAppender(dir, 'b-now');
    mine.append(batch(20, 10));
    const left = leftoverSpoolFiles(dir, 'b-now');
    expect(left).toHaveLength(1);
    expect(left[0]).toMatchObject({ file: r1.file, offset: r1.length });
    expect(readDoneOffset(r1.file)).toBe(r1.length);
    expect(decodeFrames(readSpoolRange(left[0]!)).messages.flatMap((m) => readRows(m))).toEqual(expected(10, 10));
    expect(readdirSync(dir).sort()).toHaveLength(3);
    expect(readFileSync(`${r1.file}.done`, 'utf8')).toBe(String(r1.length));
  });
});

describe('spool directory ownership', () => {
  it('is taken by one process at a time, given back, and taken over from a process that has ended', () => {
    const dir = spoolDir();
    const owner = join(dir, SPOOL_OWNER_FILE);
    expect(claimSpoolDir(dir)).toEqual({ owner: null });
    expect(readFileSync(owner, 'utf8')).toBe(String(process.pid));
    expect(claimSpoolDir(dir)).toEqual({ owner: process.pid }); // held (by this process's other writer)
    releaseSpoolDir(dir);
    expect(existsSync(owner)).toBe(false);
    // A crashed resolver's file: its process no longer runs.
    const ended = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(owner, String(ended));
    expect(claimSpoolDir(dir)).toEqual({ owner: null });
    expect(readFileSync(owner, 'utf8')).toBe(String(process.pid));
    // Another process's file is left alone by release.
    writeFileSync(owner, String(ended));
    releaseSpoolDir(dir);
    expect(readFileSync(owner, 'utf8')).toBe(String(ended));
  });
});
