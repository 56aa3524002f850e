import { type AdminsTable, CompiledTemplates, type Database, prepared, slot } from '@cordon/db';
import { Role } from '@cordon/shared';
import type { Kysely, Selectable } from 'kysely';

/**
 * An admin row with what a token, the second factor and the profile need (account names of its MSP
 * and customer, and whether its MSP enforces 2FA).
 */
export type AdminForToken = Pick<
  Selectable<AdminsTable>,
  | 'id'
  | 'email'
  | 'full_name'
  | 'password_hash'
  | 'role'
  | 'msp_id'
  | 'customer_id'
  | 'is_default'
  | 'twofa_enabled'
  | 'twofa_secret'
  | 'twofa_pending_secret'
  | 'twofa_last_step'
  | 'token_generation'
  | 'lang'
  | 'timezone'
  | 'last_login_at'
  | 'created_at'
> & { msp_name: string | null; customer_name: string | null; msp_enforce_twofa: number | null };

const adminColumns = [
  'admins.id',
  'admins.email',
  'admins.full_name',
  'admins.password_hash',
  'admins.role',
  'admins.msp_id',
  'admins.customer_id',
  'admins.is_default',
  'admins.twofa_enabled',
  'admins.twofa_secret',
  'admins.twofa_pending_secret',
  'admins.twofa_last_step',
  'admins.token_generation',
  'admins.lang',
  'admins.timezone',
  'admins.last_login_at',
  'admins.created_at',
  'msps.name as msp_name',
  'msps.enforce_twofa as msp_enforce_twofa',
  'customers.account_name as customer_name',
] as const;

/** Every admin with its MSP's and customer's names (callers add the tenant scope). */
export function adminQuery(db: Kysely<Database>) {
  return db
    .selectFrom('admins')
    .leftJoin('msps', 'msps.id', 'admins.msp_id')
    .leftJoin('customers', 'customers.id', 'admins.customer_id')
    .select(adminColumns);
}

/** The admin with this e-mail (lower case), or undefined. Admins are looked up across tenants (login). */
export function findAdminByEmail(db: Kysely<Database>, email: string): Promise<AdminForToken | undefined> {
  return adminQuery(db).where('admins.email', '=', email.toLowerCase()).executeTakeFirst();
}

/** The admin with this id, or undefined (used to check a token's subject still exists). */
export function findAdminById(db: Kysely<Database>, id: number): Promise<AdminForToken | undefined> {
  return adminQuery(db).where('admins.id', '=', id).executeTakeFirst();
}

/** This module's statements compiled once per database handle ({@link CompiledTemplates}). */
const templates = new WeakMap<Kysely<Database>, CompiledTemplates<Record<string, unknown>>>();

/** The compiled statements of `db` (one shape today: the bearer check's). */
function templatesOf(db: Kysely<Database>): CompiledTemplates<Record<string, unknown>> {
  let t = templates.get(db);
  if (t === undefined) {
    t = new CompiledTemplates(4);
    templates.set(db, t);
  }
  return t;
}

/**
 * The admin with this id, or undefined, and whether token id `jti` is on the API's revocation list
 * (`revoked_tokens`), in one statement when the admin exists (the revocation as a subquery beside its
 * row), else in a second one.
 */
export async function findAdminByIdAndRevocation(
  db: Kysely<Database>,
  id: number,
  jti: string,
): Promise<{ admin: AdminForToken | undefined; revoked: boolean }> {
  // Every authenticated request asks it: built and compiled once per handle, prepared, so that it is
  // planned once per connection too.
  const statement = templatesOf(db).bind('adminByIdAndRevocation', { id, jti }, () =>
    adminQuery(db)
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom('revoked_tokens')
              .select('revoked_tokens.jti')
              .where('revoked_tokens.jti', '=', slot<string>('jti')),
          )
          .as('token_revoked'),
      )
      .where('admins.id', '=', slot<number>('id')),
  );
  const [row] = (await db.executeQuery(prepared(statement))).rows;
  if (row) {
    // PostgreSQL answers a boolean, SQLite 0 or 1.
    const { token_revoked, ...admin } = row;
    return { admin, revoked: Boolean(token_revoked) };
  }
  const revoked = await db
    .selectFrom('revoked_tokens')
    .select('revoked_tokens.jti')
    .where('revoked_tokens.jti', '=', jti)
    .executeTakeFirst();
  return { admin: undefined, revoked: revoked !== undefined };
}

/** The e-mail of the first system admin (role 1), or undefined when there is none. */
export async function firstSystemAdminEmail(db: Kysely<Database>): Promise<string | undefined> {
  const row = await db
    .selectFrom('admins')
    .select('email')
    .where('role', '=', Role.System)
    .orderBy('id')
    .executeTakeFirst();
  return row?.email;
}

/** Records a successful login time (ISO text). */
export async function touchLogin(db: Kysely<Database>, id: number, at: string): Promise<void> {
  await db.updateTable('admins').set({ last_login_at: at }).where('id', '=', id).execute();
}

/** The fields of a new admin row. */
export interface NewAdmin {
  email: string;
  full_name: string;
  password_hash: string;
  role: number;
  msp_id: number | null;
  customer_id: number | null;
  is_default: boolean;
}

/** True when an admin already uses this e-mail (e-mails are unique across all tenants). */
export async function emailTaken(db: Kysely<Database>, email: string): Promise<boolean> {
  const row = await db.selectFrom('admins').select('id').where('email', '=', email.toLowerCase()).executeTakeFirst();
  return row !== undefined;
}

/** Inserts an admin; returns its id. Call inside the transaction that creates its tenant. */
export async function insertAdmin(db: Kysely<Database>, admin: NewAdmin, at: string): Promise<number> {
  const row = await db
    .insertInto('admins')
    .values({
      email: admin.email.toLowerCase(),
      full_name: admin.full_name,
      password_hash: admin.password_hash,
      role: admin.role,
      msp_id: admin.msp_id,
      customer_id: admin.customer_id,
      is_default: admin.is_default ? 1 : 0,
      twofa_enabled: 0,
      twofa_secret: null,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
