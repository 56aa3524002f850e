import type { Database } from '@cordon/db';
import type { Kysely } from 'kysely';

/**
 * Revokes a token id until `expiresAt` (epoch s); idempotent. Also drops rows that have expired.
 * Token state of the API, not a tenant change: written outside the mutation path (no audit row).
 */
export async function revokeToken(db: Kysely<Database>, jti: string, expiresAt: number, nowS: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('revoked_tokens').where('expires_at', '<', nowS).execute();
    await trx
      .insertInto('revoked_tokens')
      .values({ jti, expires_at: expiresAt })
      .onConflict((oc) => oc.column('jti').doNothing())
      .execute();
  });
}
