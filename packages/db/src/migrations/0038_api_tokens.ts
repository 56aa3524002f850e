import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * API tokens for automation (issue 26; docs/api.md "API tokens"; docs/security.md "API tokens"):
 *
 * - `api_tokens`: one row per named token of an admin. The secret `cdn_<prefix>_<random>` is never
 *   stored: `prefix` (public, unique) finds the row, `secret_hash` is the SHA-256 (hex) of the whole
 *   secret. `access` is `read` or `read-write`; `role` the admin's role at creation (a different role
 *   at use = demoted, refused). Times are ISO-8601 UTC text like every other table; `expires_at` null
 *   never expires. The row goes with its admin (cascade).
 * - `audit_log.api_token_id` / `api_token_name`: the token a change was made with (null for a login
 *   session), so the trail names the token, not only its admin.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumnType(dialect);
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('api_tokens')
    .addColumn('id', id, pk)
    .addColumn('admin_id', 'integer', (c) => c.notNull().references('admins.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull().unique())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('access', 'text', (c) => c.notNull())
    .addColumn('role', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('last_used_ip', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_tokens_admin').on('api_tokens').column('admin_id').execute();
  await db.schema.alterTable('audit_log').addColumn('api_token_id', 'integer').execute();
  await db.schema.alterTable('audit_log').addColumn('api_token_name', 'text').execute();
}
