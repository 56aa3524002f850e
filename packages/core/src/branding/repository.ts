import type { Database, UiInterfacesTable, UiSupportTable } from '@cordon/db';
import type { Kysely, Selectable } from 'kysely';

/** A branding level: an MSP's (`mspId`) or the system's (`mspId` null). */
export interface BrandingLevel {
  readonly mspId: number | null;
}

export type InterfaceRow = Selectable<UiInterfacesTable>;
export type SupportRow = Selectable<UiSupportTable>;

/**
 * The interface row of `level`, selected by its own MSP id. Callers resolve the level through the
 * tenancy checks first (a level is only built from a visible MSP), so this never reaches another
 * tenant's row.
 */
export async function getInterface(db: Kysely<Database>, level: BrandingLevel): Promise<InterfaceRow | undefined> {
  return db
    .selectFrom('ui_interfaces')
    .selectAll()
    .where((eb) => (level.mspId === null ? eb('msp_id', 'is', null) : eb('msp_id', '=', level.mspId)))
    .executeTakeFirst();
}

/** The product's name where no interface title is set. */
export const PRODUCT_TITLE = 'Cordon';

/**
 * The interface title people of MSP `mspId` (null: the system's own people) see in mail and
 * reports: the MSP's own title, else the system's, else {@link PRODUCT_TITLE} (the console's
 * title rule, applied to what leaves the console).
 */
export async function interfaceTitle(db: Kysely<Database>, mspId: number | null): Promise<string> {
  const rows = await db
    .selectFrom('ui_interfaces')
    .select(['msp_id', 'title'])
    .where((eb) =>
      mspId === null ? eb('msp_id', 'is', null) : eb.or([eb('msp_id', '=', mspId), eb('msp_id', 'is', null)]),
    )
    .execute();
  const own = mspId === null ? undefined : rows.find((r) => r.msp_id === mspId);
  const system = rows.find((r) => r.msp_id === null);
  return own?.title || system?.title || PRODUCT_TITLE;
}

/** The columns of an interface row that a change sets. */
export type InterfacePatch = Partial<
  Pick<InterfacesColumns, 'title' | 'nameservers' | 'logo' | 'logo_type' | 'logo_sha256'>
>;
type InterfacesColumns = Omit<Selectable<UiInterfacesTable>, 'id' | 'msp_id' | 'created_at' | 'updated_at'>;

/** Inserts `level`'s interface row or updates it with `patch`; `at` is the ISO-8601 time. */
export async function upsertInterface(
  db: Kysely<Database>,
  level: BrandingLevel,
  patch: InterfacePatch,
  at: string,
): Promise<void> {
  const existing = await getInterface(db, level);
  if (existing) {
    await db
      .updateTable('ui_interfaces')
      .set({ ...patch, updated_at: at })
      .where('id', '=', existing.id)
      .execute();
    return;
  }
  await db
    .insertInto('ui_interfaces')
    .values({
      msp_id: level.mspId,
      ...patch,
      title: patch.title ?? '',
      nameservers: patch.nameservers ?? '[]',
      created_at: at,
      updated_at: at,
    })
    .execute();
}

/** The support row of `level` (same scoping note as {@link getInterface}). */
export async function getSupport(db: Kysely<Database>, level: BrandingLevel): Promise<SupportRow | undefined> {
  return db
    .selectFrom('ui_support')
    .selectAll()
    .where((eb) => (level.mspId === null ? eb('msp_id', 'is', null) : eb('msp_id', '=', level.mspId)))
    .executeTakeFirst();
}

/** Inserts or replaces `level`'s support contacts; `at` is the ISO-8601 time. */
export async function upsertSupport(
  db: Kysely<Database>,
  level: BrandingLevel,
  values: { email: string; link: string; support_desk_url: string },
  at: string,
): Promise<void> {
  const existing = await getSupport(db, level);
  if (existing) {
    await db
      .updateTable('ui_support')
      .set({ ...values, updated_at: at })
      .where('id', '=', existing.id)
      .execute();
    return;
  }
  await db
    .insertInto('ui_support')
    .values({ msp_id: level.mspId, ...values, created_at: at, updated_at: at })
    .execute();
}
