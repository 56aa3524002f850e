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

/** Columns of a block page row a write sets: its texts, its logo, or both. */
type RowColumns = Partial<Pick<BlockPageRow, 'title' | 'message' | 'footer' | 'support_contact'>> & {
  logo?: Uint8Array | null;
  logo_type?: string | null;
  logo_sha256?: string | null;
};

/**
 * Sets `columns` on `owner`'s row, creating the row (other texts empty, no logo) when the owner has
 * none yet; `at` is the ISO-8601 time.
 */
async function upsertColumns(
  db: Kysely<Database>,
  owner: BlockPageOwner,
  columns: RowColumns,
  at: string,
): Promise<void> {
  const existing = await getRow(db, owner);
  if (existing) {
    await db
      .updateTable('blockpages')
      .set({ ...columns, updated_at: at })
      .where('id', '=', existing.id)
      .execute();
    return;
  }
  await db
    .insertInto('blockpages')
    .values({
      customer_id: owner.kind === 'customer' ? owner.customerId : null,
      msp_id: owner.kind === 'customer' ? null : owner.kind === 'msp' ? owner.mspId : null,
      title: '',
      message: '',
      footer: '',
      support_contact: '',
      ...columns,
      created_at: at,
      updated_at: at,
    })
    .execute();
}

/** Inserts or replaces the texts of `owner`'s row; `at` is the ISO-8601 time. */
export function upsertRow(
  db: Kysely<Database>,
  owner: BlockPageOwner,
  body: BlockPageUpdate,
  at: string,
): Promise<void> {
  return upsertColumns(db, owner, body, at);
}

/** Deletes `owner`'s row; @returns whether there was one */
export async function deleteRow(db: Kysely<Database>, owner: BlockPageOwner): Promise<boolean> {
  const row = await getRow(db, owner);
  if (!row) return false;
  await db.deleteFrom('blockpages').where('id', '=', row.id).execute();
  return true;
}

/** A logo to store on a row, or null to remove it. */
export type StoredLogo = { readonly bytes: Uint8Array; readonly type: string; readonly sha256: string } | null;

/** Sets (or, with null, clears) the logo of `owner`'s row, creating the row when the owner has none yet. */
export function setLogo(db: Kysely<Database>, owner: BlockPageOwner, logo: StoredLogo, at: string): Promise<void> {
  return upsertColumns(
    db,
    owner,
    { logo: logo?.bytes ?? null, logo_type: logo?.type ?? null, logo_sha256: logo?.sha256 ?? null },
    at,
  );
}
