import type { BlockpagesTable, Database } from '@cordon/db';
import type { BlockPageUpdate } from '@cordon/shared';
import type { Kysely, Selectable } from 'kysely';

/** Whose branding a row is: a customer's, an MSP's or the system's (both ids null). */
export type BlockPageOwner =
  | { readonly kind: 'customer'; readonly customerId: number; readonly mspId: number }
  | { readonly kind: 'msp'; readonly mspId: number }
  | { readonly kind: 'system' };

export type BlockPageRow = Selectable<BlockpagesTable>;

/**
 * The row of `owner`, selected by its own ids. Callers resolve the owner through the tenancy checks
 * first ({@link BlockPageOwner} is only built from a visible customer or MSP), so this never reaches
 * another tenant's row.
 */
export async function getRow(db: Kysely<Database>, owner: BlockPageOwner): Promise<BlockPageRow | undefined> {
  return db
    .selectFrom('blockpages')
    .selectAll()
    .where((eb) =>
      owner.kind === 'customer'
        ? eb('customer_id', '=', owner.customerId)
        : eb.and([
            eb('customer_id', 'is', null),
            owner.kind === 'msp' ? eb('msp_id', '=', owner.mspId) : eb('msp_id', 'is', null),
          ]),
    )
    .executeTakeFirst();
}

/** Inserts or replaces the texts of `owner`'s row; `at` is the ISO-8601 time. */
export async function upsertRow(
  db: Kysely<Database>,
  owner: BlockPageOwner,
  body: BlockPageUpdate,
  at: string,
): Promise<void> {
  const existing = await getRow(db, owner);
  if (existing) {
    await db
      .updateTable('blockpages')
      .set({ ...body, updated_at: at })
      .where('id', '=', existing.id)
      .execute();
    return;
  }
  await db
    .insertInto('blockpages')
    .values({
      customer_id: owner.kind === 'customer' ? owner.customerId : null,
      msp_id: owner.kind === 'customer' ? null : owner.kind === 'msp' ? owner.mspId : null,
      ...body,
      created_at: at,
      updated_at: at,
    })
    .execute();
}

/** Deletes `owner`'s row; @returns whether there was one */
export async function deleteRow(db: Kysely<Database>, owner: BlockPageOwner): Promise<boolean> {
  const row = await getRow(db, owner);
  if (!row) return false;
  await db.deleteFrom('blockpages').where('id', '=', row.id).execute();
  return true;
}
