import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '@cordon/db';
import type { Kysely } from 'kysely';

/** What a link token is for: completing an invitation or resetting a password. */
export type LinkPurpose = 'invite' | 'reset';

/** How long a link works, ms: a password reset 1 h (the issue's rule), an invitation 72 h. */
export const LINK_TTL_MS: Readonly<Record<LinkPurpose, number>> = { reset: 3_600_000, invite: 72 * 3_600_000 };

/** SHA-256 hex of a link token: only the hash is stored, so a database copy opens no account. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Issues a new link token for `adminId` (32 random bytes, base64url: 43 characters), storing only its
 * hash with its expiry; the admin's earlier unused tokens of the same purpose are deleted, so only
 * the newest link works.
 * @returns the token to put in the link (never stored)
 */
export async function issueLinkToken(
  db: Kysely<Database>,
  adminId: number,
  purpose: LinkPurpose,
  now: number,
  at: string,
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.deleteFrom('account_tokens').where('admin_id', '=', adminId).where('purpose', '=', purpose).execute();
  await db
    .insertInto('account_tokens')
    .values({
      token_hash: hashToken(token),
      admin_id: adminId,
      purpose,
      expires_at: now + LINK_TTL_MS[purpose],
      used_at: null,
      created_at: at,
    })
    .execute();
  return token;
}

/**
 * Uses a link token once: marks it used only if it has this purpose, is unused and has not expired
 * (one conditional UPDATE, so two concurrent uses cannot both win).
 * @returns the admin id it was issued for, or undefined for any other token
 */
export async function consumeLinkToken(
  db: Kysely<Database>,
  token: string,
  purpose: LinkPurpose,
  now: number,
  at: string,
): Promise<number | undefined> {
  const hash = hashToken(token);
  const result = await db
    .updateTable('account_tokens')
    .set({ used_at: at })
    .where('token_hash', '=', hash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  const row = await db
    .selectFrom('account_tokens')
    .select('admin_id')
    .where('token_hash', '=', hash)
    .executeTakeFirst();
  return row?.admin_id;
}
