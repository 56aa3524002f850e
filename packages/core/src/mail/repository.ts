import type { Database, MailSettingsTable } from '@cordon/db';
import type { MailSettingsUpdate } from '@cordon/shared';
import type { Kysely, Selectable } from 'kysely';

/** A stored mail-settings row. */
export type MailSettingsRow = Selectable<MailSettingsTable>;

/** Whose settings: the system's, or one MSP's. */
export type MailOwner = { kind: 'system' } | { kind: 'msp'; mspId: number };

/** The `owner` key of a row: 'system' or 'msp:<id>' (migration 0011). */
export function ownerKey(owner: MailOwner): string {
  return owner.kind === 'system' ? 'system' : `msp:${owner.mspId}`;
}

/** The owner's own row, or undefined. */
export function getRow(db: Kysely<Database>, owner: MailOwner): Promise<MailSettingsRow | undefined> {
  return db.selectFrom('mail_settings').selectAll().where('owner', '=', ownerKey(owner)).executeTakeFirst();
}

/**
 * Creates or replaces the owner's row. `body.password` undefined keeps the stored password;
 * `body.console_url` undefined keeps the stored one.
 */
export async function upsertRow(
  db: Kysely<Database>,
  owner: MailOwner,
  body: MailSettingsUpdate,
  at: string,
): Promise<void> {
  const existing = await getRow(db, owner);
  const values = {
    server: body.server,
    port: body.port,
    security: body.security,
    username: body.username,
    password: body.password ?? existing?.password ?? '',
    sender: body.sender,
    from_email: body.from_email,
    notification_period: body.notification_period,
    console_url: body.console_url ?? existing?.console_url ?? '',
    updated_at: at,
  };
  if (existing) {
    await db.updateTable('mail_settings').set(values).where('id', '=', existing.id).execute();
  } else {
    await db
      .insertInto('mail_settings')
      .values({ ...values, owner: ownerKey(owner), msp_id: owner.kind === 'msp' ? owner.mspId : null })
      .execute();
  }
}

/** Deletes the owner's row; true when there was one. */
export async function deleteRow(db: Kysely<Database>, owner: MailOwner): Promise<boolean> {
  const result = await db.deleteFrom('mail_settings').where('owner', '=', ownerKey(owner)).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
