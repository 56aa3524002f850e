import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * Block-page logos (spec-notes §7 `/ui/blockpage`, multipart variant; docs/decisions.md "Logos"): the image
 * bytes on the owner's `blockpages` row, its sniffed media type and its SHA-256, which names it in the
 * block page's logo URL (so a browser may cache it for good). All null: no logo at this level.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const bytes = dialect === 'postgres' ? 'bytea' : 'blob';
  await db.schema.alterTable('blockpages').addColumn('logo', bytes).execute();
  await db.schema.alterTable('blockpages').addColumn('logo_type', 'text').execute();
  await db.schema.alterTable('blockpages').addColumn('logo_sha256', 'text').execute();
  await db.schema.createIndex('blockpages_logo_sha256').on('blockpages').column('logo_sha256').execute();
}
