import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../src/index.ts';
import { up } from '../src/migrations/0041_device_contact_hours.ts';
import { createTestDatabase, testDialects } from '../src/testing.ts';

const AT = '2026-11-29T05:00:00.000Z';

/** An MSP and `n` customers of it; their ids. */
async function customers(handle: DatabaseHandle, n: number): Promise<number[]> {
  const { db } = handle;
  const stamp = { created_at: AT, updated_at: AT };
  const msp = await db
    .insertInto('msps')
    .values({ name: 'm', company_name: 'M', license: '', timezone: 'UTC', ...stamp })
    .returning('id')
    .executeTakeFirstOrThrow();
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const row = await db
      .insertInto('customers')
      .values({ msp_id: msp.id, account_name: `c${i}`, uuid_str: `u${i}`, timezone: 'UTC', ...stamp })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.push(row.id);
  }
  return ids;
}

/** A device row as the agent's enrolment writes it, last heard from at `contact` (null: never). */
function device(customerId: number, key: string, contact: string | null) {
  return {
    customer_id: customerId,
    key,
    name: key,
    last_contact_at: contact,
    location_id: null,
    policy_id: null,
    device_exception_id: null,
    advanced_config: null,
    created_at: AT,
    updated_at: AT,
  };
}

/** The table's rows as `customer|hour` → devices. */
async function hours(handle: DatabaseHandle): Promise<Record<string, number>> {
  const rows = await handle.db.selectFrom('device_contact_hours').selectAll().execute();
  return Object.fromEntries(rows.map((r) => [`${r.customer_id}|${r.hour}`, Number(r.devices)]));
}

/** What the table must hold: the devices grouped by customer and hour of last contact. */
async function expected(handle: DatabaseHandle): Promise<Record<string, number>> {
  const rows = await sql<{ customer_id: number; hour: string; n: number | string }>`
    select customer_id, coalesce(substr(last_contact_at, 1, 13), '') as hour, count(*) as n
    from devices group by customer_id, coalesce(substr(last_contact_at, 1, 13), '')`.execute(handle.db);
  return Object.fromEntries(rows.rows.map((r) => [`${r.customer_id}|${r.hour}`, Number(r.n)]));
}

describe.each(testDialects())('device_contact_hours (migration 0041) on %s', (dialect) => {
  it('follows every write to devices: enrolment, heartbeats within and across hours, moves, deletes, a deleted customer', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      const { db } = handle;
      const [a, b] = (await customers(handle, 2)) as [number, number];
      await db
        .insertInto('devices')
        .values([
          device(a, 'a1', '2026-11-29T04:10:00.000Z'),
          device(a, 'a2', '2026-11-29T04:59:59.999Z'),
          device(a, 'a3', null),
          device(b, 'b1', '2026-11-28T23:00:00.000Z'),
        ])
        .execute();
      expect(await hours(handle)).toEqual({
        [`${a}|2026-11-29T04`]: 2,
        [`${a}|`]: 1,
        [`${b}|2026-11-28T23`]: 1,
      });

      // A heartbeat in the same hour moves nothing; one in the next hour moves the device there.
      await db
        .updateTable('devices')
        .set({ last_contact_at: '2026-11-29T04:30:00.000Z' })
        .where('key', '=', 'a1')
        .execute();
      expect((await hours(handle))[`${a}|2026-11-29T04`]).toBe(2);
      await db
        .updateTable('devices')
        .set({ last_contact_at: '2026-11-29T05:01:00.000Z' })
        .where('key', '=', 'a1')
        .execute();
      // The first contact of a never-heard-from device; an update of other columns only.
      await db
        .updateTable('devices')
        .set({ last_contact_at: '2026-11-29T05:02:00.000Z' })
        .where('key', '=', 'a3')
        .execute();
      await db.updateTable('devices').set({ name: 'renamed' }).where('key', '=', 'a2').execute();
      expect(await hours(handle)).toEqual({
        [`${a}|2026-11-29T04`]: 1,
        [`${a}|2026-11-29T05`]: 2,
        [`${b}|2026-11-28T23`]: 1,
      });

      // A device moved to another customer, then deleted: its rows follow, and none stays at 0.
      await db.updateTable('devices').set({ customer_id: b }).where('key', '=', 'a2').execute();
      expect(await hours(handle)).toEqual({
        [`${a}|2026-11-29T05`]: 2,
        [`${b}|2026-11-29T04`]: 1,
        [`${b}|2026-11-28T23`]: 1,
      });
      await db.deleteFrom('devices').where('key', 'in', ['a2', 'b1']).execute();
      expect(await hours(handle)).toEqual({ [`${a}|2026-11-29T05`]: 2 });

      // A deleted customer takes its devices and its rows.
      await db.deleteFrom('customers').where('id', '=', a).execute();
      expect(await hours(handle)).toEqual({});
      expect(await db.selectFrom('devices').select('id').execute()).toEqual([]);
    } finally {
      await handle.close();
    }
  });

  it('equals the devices grouped by hour after 300 random writes', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      const { db } = handle;
      const ids = await customers(handle, 3);
      let seed = 7;
      const rnd = (n: number) => {
        seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
        return seed % n;
      };
      const contact = () =>
        rnd(5) === 0 ? null : new Date(Date.parse(AT) - rnd(6) * 3_600_000 - rnd(3_600_000)).toISOString();
      let next = 0;
      for (let i = 0; i < 300; i++) {
        const keys = (await db.selectFrom('devices').select('key').orderBy('id').execute()).map((r) => r.key);
        const op = keys.length < 5 ? 0 : rnd(4);
        if (op === 0) {
          await db
            .insertInto('devices')
            .values(device(ids[rnd(3)]!, `k${next++}`, contact()))
            .execute();
        } else if (op === 1) {
          await db.deleteFrom('devices').where('key', '=', keys[rnd(keys.length)]!).execute();
        } else if (op === 2) {
          await db
            .updateTable('devices')
            .set({ customer_id: ids[rnd(3)]! })
            .where('key', '=', keys[rnd(keys.length)]!)
            .execute();
        } else {
          await db
            .updateTable('devices')
            .set({ last_contact_at: contact() })
            .where('key', '=', keys[rnd(keys.length)]!)
            .execute();
        }
      }
      expect(Object.keys(await expected(handle)).length).toBeGreaterThan(5);
      expect(await hours(handle)).toEqual(await expected(handle));
    } finally {
      await handle.close();
    }
  });

  it('counts the devices already there when it is created', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      const { db } = handle;
      const [a] = (await customers(handle, 1)) as [number];
      // The database as migration 0040 left it: no table, no triggers.
      if (dialect === 'postgres') {
        await sql`drop function device_contact_hours_follow() cascade`.execute(db);
      } else {
        for (const t of ['insert', 'delete', 'update'])
          await sql.raw(`drop trigger devices_contact_hours_${t}`).execute(db);
      }
      await sql`drop table device_contact_hours`.execute(db);
      await db
        .insertInto('devices')
        .values([
          device(a, 'x', '2026-11-29T04:10:00.000Z'),
          device(a, 'y', '2026-11-29T04:20:00.000Z'),
          device(a, 'z', null),
        ])
        .execute();
      await up(db as never, dialect);
      expect(await hours(handle)).toEqual({ [`${a}|2026-11-29T04`]: 2, [`${a}|`]: 1 });
      await db.deleteFrom('devices').where('key', '=', 'z').execute();
      expect(await hours(handle)).toEqual({ [`${a}|2026-11-29T04`]: 2 });
    } finally {
      await handle.close();
    }
  });
});
