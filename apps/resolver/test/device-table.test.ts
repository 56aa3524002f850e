import { describe, expect, it } from 'vitest';
import { type DeviceRow, DeviceTable, DeviceTableBuilder, type PolicyMode } from '../src/snapshot/devices.ts';

/** mulberry32: a seeded generator, so a failure replays. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const MODES: readonly PolicyMode[] = ['default', 'group', 'policy'];

/**
 * Keys as the API makes them (32 URL-safe characters) and odd ones a database row could hold: short,
 * long, empty, Latin-1 above 0x7f, and code units above 0xff (kept beside the packed keys).
 */
function keyOf(rnd: () => number): string {
  const kind = rnd();
  if (kind < 0.01) return '';
  // Longer than the 128 characters the transports accept: compared without the scratch array.
  const len = kind < 0.02 ? 129 + Math.floor(rnd() * 200) : kind < 0.8 ? 32 : 1 + Math.floor(rnd() * 40);
  let key = '';
  for (let i = 0; i < len; i++) key += URL_SAFE[Math.floor(rnd() * URL_SAFE.length)];
  if (kind > 0.97) return `${key}é`;
  if (kind > 0.95) return `Ω${key}`;
  if (kind > 0.94) return `${key}😀`;
  return key;
}

/** A row for `key` of `customerId`; nullable ids null about a third of the time. */
function makeRow(rnd: () => number, key: string, customerId: number): DeviceRow {
  const id = () => (rnd() < 0.3 ? null : 1 + Math.floor(rnd() * (2 ** 31 - 2)));
  return {
    deviceId: 1 + Math.floor(rnd() * 1e9),
    customerId,
    mspId: 1 + (customerId % 7),
    key,
    mode: MODES[Math.floor(rnd() * 3)]!,
    policyId: id(),
    exceptionId: id(),
    locationId: id(),
  };
}

/** The table says exactly what the `Map` (the representation it replaced) says, in the same order. */
function expectSame(table: DeviceTable, model: Map<string, DeviceRow>, absent: readonly string[]): void {
  expect(table.size).toBe(model.size);
  expect([...table.values()]).toEqual([...model.values()]);
  const order = [...model.keys()];
  expect([...table.rows()]).toEqual(order.map((k, i) => [k, i]));
  order.forEach((key, i) => {
    expect(table.rowOf(key)).toBe(i);
    expect(table.keyOf(i)).toBe(key);
    expect(table.has(key)).toBe(true);
    expect(table.get(key)).toEqual(model.get(key));
  });
  // Near misses: one character changed (the last one), one added.
  const index = new Map(order.map((k, i) => [k, i]));
  for (const key of order) {
    for (const near of [`${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`, `${key}A`]) {
      expect(table.rowOf(near)).toBe(index.get(near) ?? -1);
    }
  }
  for (const key of absent) {
    if (model.has(key)) continue;
    expect(table.rowOf(key)).toBe(-1);
    expect(table.has(key)).toBe(false);
    expect(table.get(key)).toBeUndefined();
  }
}

describe('DeviceTable (packed keys) against a Map', () => {
  it('inserts and overwrites like Map.set: a key keeps its first row, its row takes the last values', () => {
    const rnd = random(1);
    const builder = new DeviceTableBuilder(0); // starts at 16 rows: grows many times
    const model = new Map<string, DeviceRow>();
    const keys: string[] = [];
    for (let op = 0; op < 20_000; op++) {
      // One in four adds an existing key again (an update in place).
      const key = keys.length > 0 && rnd() < 0.25 ? keys[Math.floor(rnd() * keys.length)]! : keyOf(rnd);
      keys.push(key);
      const row = makeRow(rnd, key, 1 + Math.floor(rnd() * 50));
      builder.add(row);
      model.set(key, row);
    }
    const absent = Array.from({ length: 2_000 }, () => keyOf(rnd));
    expectSame(builder.build(), model, absent);
    expect(DeviceTable.from(model.values()).size).toBe(model.size);
  });

  it('follows incremental reloads: unchanged customers copied, changed ones read again (removals, updates, moves)', () => {
    const rnd = random(2);
    const CUSTOMERS = 40;
    // The "database": key → row.
    const db = new Map<string, DeviceRow>();
    const ever: string[] = [];
    const insert = () => {
      const key = keyOf(rnd);
      ever.push(key);
      db.set(key, makeRow(rnd, key, 1 + Math.floor(rnd() * CUSTOMERS)));
    };
    for (let i = 0; i < 3_000; i++) insert();
    let table = DeviceTable.from(db.values());
    let model = new Map(db);
    expectSame(table, model, ever);

    for (let generation = 0; generation < 25; generation++) {
      // Changes: removals, updates (some moving a key to another customer), insertions.
      const changed = new Set<number>();
      const keys = [...db.keys()];
      for (let k = 0; k < 150; k++) {
        const key = keys[Math.floor(rnd() * keys.length)]!;
        const row = db.get(key);
        if (row === undefined) continue;
        changed.add(row.customerId);
        const what = rnd();
        if (what < 0.4) db.delete(key);
        else {
          const moved = what < 0.5 ? 1 + Math.floor(rnd() * CUSTOMERS) : row.customerId;
          changed.add(moved);
          db.set(key, makeRow(rnd, key, moved));
        }
      }
      for (let k = 0; k < 100; k++) {
        insert();
        changed.add(db.get(ever[ever.length - 1]!)!.customerId);
      }

      // The part's incremental load (devices.ts): the unchanged customers' rows copied in row
      // order, then the changed customers' rows read again.
      const builder = new DeviceTableBuilder(db.size);
      const next = new Map<string, DeviceRow>();
      const byCopy = generation % 2 === 0;
      for (const [key, i] of table.rows()) {
        if (changed.has(table.customerId(i))) continue;
        if (byCopy) builder.copyRow(table, i);
        else builder.copy(table, key, i);
        next.set(key, model.get(key)!);
      }
      for (const row of db.values()) {
        if (!changed.has(row.customerId)) continue;
        builder.add(row);
        next.set(row.key, row);
      }
      table = builder.build();
      model = next;
      expectSame(table, model, ever);
      // Every device the database has, with its current row, and nothing else.
      expect(new Map([...table.values()].map((d) => [d.key, d]))).toEqual(db);
    }
  });

  it('tells apart keys that differ in their last character only, short or long', () => {
    const rnd = random(5);
    for (const prefix of ['k'.repeat(31), 'k'.repeat(200)]) {
      // Eight keys in a 16-slot table: every probe walks past keys sharing all but one character.
      const stored = 'AEIMQUYc'.split('').map((c) => `${prefix}${c}`);
      const table = DeviceTable.from(stored.map((k, i) => makeRow(rnd, k, i + 1)));
      for (let c = 0; c < 0x180; c++) {
        const probe = `${prefix}${String.fromCharCode(c)}`;
        expect(table.rowOf(probe)).toBe(stored.indexOf(probe));
      }
      expect(table.rowOf(prefix)).toBe(-1);
    }
  });

  it('an empty table finds nothing, and the empty key is a key like any other', () => {
    const empty = new DeviceTableBuilder(0).build();
    expect(empty.size).toBe(0);
    expect(empty.rowOf('')).toBe(-1);
    expect(empty.rowOf('x'.repeat(32))).toBe(-1);
    expect([...empty.values()]).toEqual([]);

    const rnd = random(3);
    const rows = [makeRow(rnd, '', 1), makeRow(rnd, 'a', 1), makeRow(rnd, 'Ω', 2)];
    const table = DeviceTable.from(rows);
    expect(table.rowOf('')).toBe(0);
    expect(table.rowOf('a')).toBe(1);
    expect(table.rowOf('Ω')).toBe(2);
    // 'Ω' is U+03A9: its low byte 0xa9 is '©', which must not match it.
    expect(table.rowOf('©')).toBe(-1);
    expect(table.get('Ω')).toEqual(rows[2]);
  });

  it('keeps the packed keys near their length: about (32 + 4 + table) bytes a 32-character key', () => {
    const rnd = random(4);
    const rows = Array.from({ length: 10_000 }, (_, i) => {
      let key = '';
      for (let k = 0; k < 32; k++) key += URL_SAFE[Math.floor(rnd() * URL_SAFE.length)];
      return makeRow(rnd, key, 1 + (i % 10));
    });
    const table = DeviceTable.from(rows);
    expect(table.size).toBe(10_000);
    // Keys 320,000 + offsets 40,004 + table 32,768 slots × 4; columns 25 bytes a row.
    expect(table.byteSize).toBe(320_000 + 40_004 + 131_072 + 250_000);
  });
});
