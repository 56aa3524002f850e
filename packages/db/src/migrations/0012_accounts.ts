import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Accounts and security (docs/security.md "Accounts"):
 * - `admins`: the profile's `lang` and `timezone` ('' = the console's default), `token_generation`
 *   (carried in each token's `jti`; raising it refuses every token issued before — logout
 *   everywhere, password change or reset, role change, 2FA reset), `twofa_pending_secret` (a TOTP
 *   secret offered by the first enrolment call, not yet confirmed by a code) and `twofa_last_step`
 *   (the TOTP time step of the last accepted code: a code is never accepted twice, RFC 6238 §5.2).
 * - `msps.enforce_twofa`: the MSP makes its admins enrol in 2FA before they can log in.
 * - `admin_recovery_codes`: the ten recovery codes of an admin's 2FA, hashed (SHA-256: they are
 *   random, 50 bits each, not passwords), `position` 1–10, used strictly in order.
 * - `account_tokens`: invitation and password-reset links, hashed (SHA-256 of 32 random bytes),
 *   single use (`used_at`), expiring (`expires_at`, epoch ms).
 * All go with their admin by cascade.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumnType(dialect);
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  await db.schema
    .alterTable('admins')
    .addColumn('lang', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('admins')
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('admins')
    .addColumn('token_generation', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('admins').addColumn('twofa_pending_secret', 'text').execute();
  await db.schema
    .alterTable('admins')
    .addColumn('twofa_last_step', bigint, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('msps')
    .addColumn('enforce_twofa', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('admin_recovery_codes')
    .addColumn('id', id, pk)
    .addColumn('admin_id', 'integer', (c) => c.notNull().references('admins.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema
    .createIndex('admin_recovery_codes_admin_position')
    .on('admin_recovery_codes')
    .columns(['admin_id', 'position'])
    .unique()
    .execute();
  await db.schema
    .createTable('account_tokens')
    .addColumn('id', id, pk)
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('admin_id', 'integer', (c) => c.notNull().references('admins.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('expires_at', bigint, (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('account_tokens_admin').on('account_tokens').column('admin_id').execute();
}
