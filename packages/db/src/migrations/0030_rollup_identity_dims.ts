import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * The roll-up dimensions of who asked (docs/decisions.md "Query log identity"; migration 0029 logs
 * it): `user` (key `u:<user name>`, else `d:<device id>`, else `ip:<client address>`), `group` (key
 * the group id, only for queries with a group) and `malware_user`/`phishing_user`, in
 * `stats_hourly_top` and the daily tables. The `user` dimensions of the hours and days rolled up
 * before are filled from their `sourceip` rows (`ip:` keys): nothing identified a device or a user
 * then, so the counts are the ones the writer would have made.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  const pairs = [
    ['sourceip', 'user'],
    ['malware_sourceip', 'malware_user'],
    ['phishing_sourceip', 'phishing_user'],
  ] as const;
  for (const [from, to] of pairs) {
    await sql`insert into stats_hourly_top (customer_id, location_id, hour, dim, action, key, count)
      select customer_id, location_id, hour, ${sql.lit(to)}, action, 'ip:' || key, count from stats_hourly_top
      where dim = ${from}`.execute(db);
    await sql`insert into stats_daily_top (customer_id, day, dim, action, key, count)
      select customer_id, day, ${sql.lit(to)}, action, 'ip:' || key, count from stats_daily_top
      where dim = ${from}`.execute(db);
    await sql`insert into stats_daily_msp_top (msp_id, day, dim, action, key, count)
      select msp_id, day, ${sql.lit(to)}, action, 'ip:' || key, count from stats_daily_msp_top
      where dim = ${from}`.execute(db);
  }
}
