import type { Database } from '@cordon/db';
import { DEPENDANT_NAMES_MAX, type DependantKind, type Dependants, InUseError } from '@cordon/shared';
import { type SelectQueryBuilder, sql } from 'kysely';

/**
 * What depends on an entity before it is deleted (docs/api.md "Deletes of things in use"; issue 29):
 * the pieces each aggregate's delete uses to count its dependants and refuse with 409 ERR_IN_USE.
 */

/**
 * One kind of dependant from `base` (a tenant-scoped select of the dependant rows; its selection is
 * replaced): the row count and the first {@link DEPENDANT_NAMES_MAX} values of `nameColumn`,
 * case-insensitively by name. Runs two queries one after the other (inside a transaction they share
 * one connection).
 */
export async function kindOf<TB extends keyof Database>(
  base: SelectQueryBuilder<Database, TB, object>,
  nameColumn: string,
): Promise<DependantKind> {
  const counted = await base.clearSelect().select(sql<number | string | bigint>`count(*)`.as('n')).executeTakeFirst();
  const count = Number(counted?.n ?? 0);
  if (count === 0) return { count: 0, names: [] };
  const ref = sql.ref(nameColumn);
  const rows = await base
    .clearSelect()
    .select(sql<string>`${ref}`.as('name'))
    .orderBy(sql`lower(${ref})`)
    .orderBy(sql`${ref}`)
    .limit(DEPENDANT_NAMES_MAX)
    .execute();
  return { count, names: rows.map((r) => String((r as { name: unknown }).name)) };
}

/** The kinds with a count above zero, in the order given. */
export function dependantsOf(kinds: Readonly<Record<string, DependantKind>>): Dependants {
  return Object.fromEntries(Object.entries(kinds).filter(([, k]) => k.count > 0));
}

/** True when any kind has a dependant. */
export function inUse(dependants: Dependants): boolean {
  return Object.values(dependants).some((k) => k.count > 0);
}

/** The kinds as English words for the error text: `2 locations, 1 group`. */
function summary(dependants: Dependants, words: Readonly<Record<string, readonly [string, string]>>): string {
  return Object.entries(dependants)
    .map(([kind, k]) => {
      const [one, many] = words[kind] ?? [kind, kind];
      return `${k.count} ${k.count === 1 ? one : many}`;
    })
    .join(', ');
}

/** Singular and plural English words of the dependant kinds, for the 409's text. */
const WORDS: Readonly<Record<string, readonly [string, string]>> = {
  locations: ['location', 'locations'],
  groups: ['group', 'groups'],
  users: ['user', 'users'],
  devices: ['device', 'devices'],
  device_settings: ['device configuration', 'device configurations'],
  members: ['member', 'members'],
  customers: ['customer', 'customers'],
  admins: ['administrator', 'administrators'],
  policies: ['policy', 'policies'],
  domains: ['domain', 'domains'],
};

/**
 * The 409 ERR_IN_USE of a delete that does not say where the dependants go: `“Students” is in use
 * (2 locations, 1 group). <hint>`, with the dependants in the body.
 * @param name the entity's name as shown to its admins
 * @param hint what the request must add, in words (`Choose another policy for them (move_to_policy_id).`)
 */
export function inUseError(name: string, dependants: Dependants, hint: string): InUseError {
  return new InUseError(`“${name}” is in use (${summary(dependants, WORDS)}). ${hint}`, dependants);
}
