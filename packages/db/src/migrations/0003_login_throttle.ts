import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * Login throttling counters shared by every API process (docs/api.md "Auth"; docs/security.md): one row per throttle key
 * (an account, a client, or an account from one client; hashed), failures in the current window, the
 * window's start, the instant until which attempts are refused (epoch ms), and the last successful
 * login of an account from that client. Also removes the access-token key earlier versions kept in
 * `settings` (docs/security.md: the key lives outside the database; tokens it signed stop working).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  await db.schema
    .createTable('login_throttle')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('window_start', bigint, (c) => c.notNull())
    .addColumn('blocked_until', bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('last_success_at', bigint)
    .execute();
  await db.schema.createIndex('login_throttle_window_start').on('login_throttle').column('window_start').execute();
  await (db as Kysely<{ settings: { key: string } }>).deleteFrom('settings').where('key', '=', 'jwt_secret').execute();
}
