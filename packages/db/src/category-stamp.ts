import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * The `settings` key of the category database's change stamp (docs/architecture.md "Data plane",
 * the safety-net resync): every writer of `category_domains` rewrites it in the transaction of its
 * change, so the resolver's resync compares one row instead of reading 1,000,000.
 */
export const CATEGORY_STAMP_KEY = 'categories:stamp';

/**
 * Writes a fresh category stamp (epoch ms and 8 random hex digits, so two writers in one
 * millisecond differ). Call inside the transaction that changes `category_domains`: the stamp
 * commits or rolls back with it.
 */
export async function bumpCategoryStamp(db: Kysely<Database>, now: number = Date.now()): Promise<void> {
  const value = `${now}-${randomBytes(4).toString('hex')}`;
  await db
    .insertInto('settings')
    .values({ key: CATEGORY_STAMP_KEY, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}
