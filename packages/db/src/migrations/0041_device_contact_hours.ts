import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * `device_contact_hours` (docs/decisions.md "Device figures from contact hours"): for each customer
 * and each hour of last contact, how many of its devices were last heard from in that hour — `hour`
 * is the first 13 characters of `devices.last_contact_at` (`YYYY-MM-DDTHH`, UTC), '' for a device
 * never heard from. The MSP overview's device count and silent-device count are sums over these
 * rows (a few dozen a customer) instead of a read of every device (`packages/core/src/stats/customers.ts`).
 *
 * Kept by triggers on `devices`, so every writer counts (core, a bulk insert, a cascade from a
 * deleted customer): an insert adds one to its hour, a delete takes one away, and an update that
 * moves a device to another hour or customer does both; a heartbeat within the hour of the last one
 * (the common case) does nothing (the trigger's condition). Rows that fall to 0 are deleted. On
 * PostgreSQL the two rows an update touches are changed in key order, so two heartbeats crossing
 * each other's hours cannot deadlock, and the function names the table through the schema of the
 * written `devices` table. The rows of a deleted customer go with it (cascade).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('device_contact_hours')
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('devices', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('device_contact_hours_pkey', ['customer_id', 'hour'])
    .execute();
  await sql`insert into device_contact_hours (customer_id, hour, devices)
    select customer_id, coalesce(substr(last_contact_at, 1, 13), ''), count(*) from devices
    group by customer_id, coalesce(substr(last_contact_at, 1, 13), '')`.execute(db);

  if (dialect === 'postgres') {
    // The table is named through the schema of the table whose write fired the trigger
    // (`tg_table_schema`), not the session's search path: a restore runs with an empty one, and the
    // tests rename the schemas they reuse. Dynamic SQL costs a parse, but the trigger fires on an
    // enrolment, a deletion or a device's first heartbeat of an hour, not on every heartbeat.
    await sql`create function device_contact_hours_follow() returns trigger
      language plpgsql as $$
      declare
        old_hour text;
        new_hour text;
        up_sql text := format('insert into %I.device_contact_hours (customer_id, hour, devices) values ($1, $2, 1)
          on conflict (customer_id, hour) do update set devices = device_contact_hours.devices + 1', tg_table_schema);
        down_sql text := format('update %I.device_contact_hours set devices = devices - 1
          where customer_id = $1 and hour = $2', tg_table_schema);
        gone_sql text := format('delete from %I.device_contact_hours
          where customer_id = $1 and hour = $2 and devices <= 0', tg_table_schema);
      begin
        if tg_op = 'INSERT' then
          execute up_sql using new.customer_id, coalesce(substr(new.last_contact_at, 1, 13), '');
          return null;
        end if;
        old_hour := coalesce(substr(old.last_contact_at, 1, 13), '');
        if tg_op = 'DELETE' then
          execute down_sql using old.customer_id, old_hour;
          execute gone_sql using old.customer_id, old_hour;
          return null;
        end if;
        new_hour := coalesce(substr(new.last_contact_at, 1, 13), '');
        if old.customer_id = new.customer_id and old_hour = new_hour then
          return null;
        end if;
        -- Key order (customer, hour): the row a concurrent update also touches is locked first by both.
        if (old.customer_id, old_hour) < (new.customer_id, new_hour) then
          execute down_sql using old.customer_id, old_hour;
          execute gone_sql using old.customer_id, old_hour;
          execute up_sql using new.customer_id, new_hour;
        else
          execute up_sql using new.customer_id, new_hour;
          execute down_sql using old.customer_id, old_hour;
          execute gone_sql using old.customer_id, old_hour;
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger devices_contact_hours_insert after insert on devices
      for each row execute function device_contact_hours_follow()`.execute(db);
    await sql`create trigger devices_contact_hours_delete after delete on devices
      for each row execute function device_contact_hours_follow()`.execute(db);
    await sql`create trigger devices_contact_hours_update after update of last_contact_at, customer_id on devices
      for each row
      when (old.customer_id is distinct from new.customer_id
        or coalesce(substr(old.last_contact_at, 1, 13), '') is distinct from coalesce(substr(new.last_contact_at, 1, 13), ''))
      execute function device_contact_hours_follow()`.execute(db);
    return;
  }
  // SQLite: one writer at a time, so no lock order; an upsert is an insert-or-ignore and an update.
  const add = (c: string, h: string) =>
    `insert or ignore into device_contact_hours (customer_id, hour, devices) values (${c}, ${h}, 0);
     update device_contact_hours set devices = devices + 1 where customer_id = ${c} and hour = ${h};`;
  const remove = (c: string, h: string) =>
    `update device_contact_hours set devices = devices - 1 where customer_id = ${c} and hour = ${h};
     delete from device_contact_hours where customer_id = ${c} and hour = ${h} and devices <= 0;`;
  const newHour = `coalesce(substr(new.last_contact_at, 1, 13), '')`;
  const oldHour = `coalesce(substr(old.last_contact_at, 1, 13), '')`;
  await sql
    .raw(`create trigger devices_contact_hours_insert after insert on devices begin
      ${add('new.customer_id', newHour)}
    end`)
    .execute(db);
  await sql
    .raw(`create trigger devices_contact_hours_delete after delete on devices begin
      ${remove('old.customer_id', oldHour)}
    end`)
    .execute(db);
  await sql
    .raw(`create trigger devices_contact_hours_update after update of last_contact_at, customer_id on devices
      when old.customer_id is not new.customer_id or ${oldHour} is not ${newHour} begin
      ${remove('old.customer_id', oldHour)}
      ${add('new.customer_id', newHour)}
    end`)
    .execute(db);
}
