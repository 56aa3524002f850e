import type { ApiTokensTable, Database } from '@cordon/db';
import type { Insertable, Kysely, Selectable } from 'kysely';

/** A stored API token row. */
export type ApiTokenRow = Selectable<ApiTokensTable>;

/** A token row with what a use needs of its admin (the row is read on every use: deleted or demoted → refused). */
export type ApiTokenWithAdmin = ApiTokenRow & {
  admin_email: string;
  admin_role: number;
  admin_msp_id: number | null;
  admin_customer_id: number | null;
};

/** Inserts a token; returns its row. */
export async function insertToken(db: Kysely<Database>, row: Insertable<ApiTokensTable>): Promise<ApiTokenRow> {
  return db.insertInto('api_tokens').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The tokens of one admin, newest first (scoped by the admin in SQL). */
export function tokensOf(db: Kysely<Database>, adminId: number): Promise<ApiTokenRow[]> {
  return db
    .selectFrom('api_tokens')
    .selectAll()
    .where('admin_id', '=', adminId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Token `id` if it is `adminId`'s, else undefined (another admin's token is not found). */
export function tokenOf(db: Kysely<Database>, adminId: number, id: number): Promise<ApiTokenRow | undefined> {
  return db
    .selectFrom('api_tokens')
    .selectAll()
    .where('admin_id', '=', adminId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The token with this public prefix joined with its admin; undefined when none (or its admin is gone). */
export function tokenByPrefix(db: Kysely<Database>, prefix: string): Promise<ApiTokenWithAdmin | undefined> {
  return db
    .selectFrom('api_tokens')
    .innerJoin('admins', 'admins.id', 'api_tokens.admin_id')
    .selectAll('api_tokens')
    .select([
      'admins.email as admin_email',
      'admins.role as admin_role',
      'admins.msp_id as admin_msp_id',
      'admins.customer_id as admin_customer_id',
    ])
    .where('api_tokens.prefix', '=', prefix)
    .executeTakeFirst();
}

/**
 * Records a use: sets `last_used_at`/`last_used_ip` only when the last one is older than `before`
 * (ISO-8601), so a busy token costs one write a minute, whichever API process it reaches.
 */
export async function touchToken(db: Kysely<Database>, id: number, at: string, ip: string | null, before: string) {
  await db
    .updateTable('api_tokens')
    .set({ last_used_at: at, last_used_ip: ip })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', before)]))
    .execute();
}
