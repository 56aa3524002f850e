import { createChangeFeed, type Database, type DatabaseHandle, nowIso } from '@cordon/db';
import { ApiError, emailSchema, isRole, newPasswordSchema, Role, requiredText, Texts } from '@cordon/shared';
import type { Kysely } from 'kysely';
import { type Caller, type CoreDeps, OPERATOR } from '../context.ts';
import { mutate } from '../mutation/index.ts';
import { customerTenant, EVERYTHING, mspVisible } from '../tenancy/index.ts';
import { generatePassword, hashPassword, verifyPassword } from './passwords.ts';
import * as repo from './repository.ts';

/**
 * The core dependencies of an operator's one-off command on `handle` (`cordon create-admin`, first-run
 * bootstrap): a change feed that is never started (publishing still records the version rows) and
 * the system clock.
 */
export function operatorDeps(handle: DatabaseHandle): CoreDeps {
  return { handle, changes: createChangeFeed(handle), now: Date.now };
}

/** What an admin row's audit states show: never the password hash or a second-factor secret. */
function auditView(id: number, admin: Omit<repo.NewAdmin, 'password_hash'>) {
  return {
    id,
    email: admin.email.toLowerCase(),
    full_name: admin.full_name,
    role: admin.role,
    msp_id: admin.msp_id,
    customer_id: admin.customer_id,
    is_default: admin.is_default,
  };
}

/**
 * The 409 for an admin e-mail already used by some admin. E-mails are unique across all tenants, so
 * only a system admin (who sees every tenant) is told it is in use; others get a text that does not
 * confirm another tenant's admin exists (docs/security.md: no cross-tenant data in 409 answers).
 * @param field the body field the error names: `admin_email` (a new MSP's or customer's primary
 *   admin) or `email` (an admin's own form)
 */
export function adminEmailConflict(caller: Pick<Caller, 'role'>, field = 'admin_email'): ApiError {
  const message = caller.role === Role.System ? Texts.emailInUse : Texts.emailUnusable;
  return new ApiError('ERR_CONFLICT', message, { [field]: message });
}

/**
 * Writes the primary (`is_default`) admin of a new MSP or customer, inside the transaction (`trx`)
 * of the mutation that creates the tenant — the tenant's audit row records it (`after.admin`).
 * @param conflict the error for an e-mail in use (its text depends on who asks)
 * @returns the admin's audit view (no hash)
 * @throws the `conflict` error when the e-mail is in use
 */
export async function createPrimaryAdmin(
  trx: Kysely<Database>,
  admin: Omit<repo.NewAdmin, 'is_default'>,
  conflict: () => Error,
  at: string,
): Promise<ReturnType<typeof auditView>> {
  if (await repo.emailTaken(trx, admin.email)) throw conflict();
  const row = { ...admin, is_default: true };
  const id = await repo.insertAdmin(trx, row, at);
  const { password_hash: _secret, ...shown } = row;
  return auditView(id, shown);
}

/**
 * Checks an e-mail/password pair (the login of docs/api.md "Auth"). Always runs one argon2
 * verification, whether or not the e-mail exists.
 * @returns the admin, or undefined for a wrong e-mail or password (the caller answers both alike)
 */
export async function checkCredentials(
  deps: CoreDeps,
  email: string,
  password: string,
): Promise<repo.AdminForToken | undefined> {
  const admin = await repo.findAdminByEmail(deps.handle.db, email.trim());
  const ok = await verifyPassword(admin?.password_hash, password);
  return admin && ok ? admin : undefined;
}

/** Records a successful login of admin `id` (`last_login_at`; not a tenant change, so no audit row). */
export async function recordLogin(deps: CoreDeps, id: number): Promise<void> {
  await repo.touchLogin(deps.handle.db, id, nowIso(deps.now()));
}

/** The admin of a token's subject, or undefined when it no longer exists. */
export function adminById(deps: CoreDeps, id: number): Promise<repo.AdminForToken | undefined> {
  return repo.findAdminById(deps.handle.db, id);
}

/**
 * First run (docs/operations.md): when no system admin (role 1) exists, creates one from `email`
 * (default 'admin@cordon.local') and `password`, or a generated password that is returned once,
 * through the mutation path as the operator (audit `admin.bootstrap`). When one exists, nothing changes.
 * @returns `created`, the admin's e-mail, and `generatedPassword` only when one was generated
 * @throws Error when the given e-mail or password breaks the spec-notes §5 rules
 */
export async function ensureSystemAdmin(
  deps: CoreDeps,
  opts: { email?: string | undefined; password?: string | undefined },
): Promise<{ created: boolean; email: string; generatedPassword?: string }> {
  const existing = await repo.firstSystemAdminEmail(deps.handle.db);
  if (existing !== undefined) return { created: false, email: existing };

  const email = emailSchema.safeParse(opts.email ?? 'admin@cordon.local');
  if (!email.success) throw new Error(`Invalid admin e-mail: ${email.error.issues[0]?.message}`);
  const generated = opts.password === undefined ? generatePassword() : undefined;
  const password = newPasswordSchema.safeParse(opts.password ?? generated);
  if (!password.success) throw new Error(`Invalid admin password: ${password.error.issues[0]?.message}`);
  const passwordHash = await hashPassword(password.data);

  await mutate(
    deps,
    OPERATOR,
    { topics: [], audit: { action: 'admin.bootstrap', entity: 'admin' } },
    async (trx, note) => {
      const admin = {
        email: email.data,
        full_name: 'System Administrator',
        role: Role.System,
        msp_id: null,
        customer_id: null,
        is_default: true,
      };
      note.entityId = await repo.insertAdmin(trx, { ...admin, password_hash: passwordHash }, nowIso(deps.now()));
      note.after = auditView(note.entityId, admin);
    },
  );
  return generated === undefined
    ? { created: true, email: email.data }
    : { created: true, email: email.data, generatedPassword: generated };
}

/** What {@link createAdmin} needs. */
export interface CreateAdminInput {
  /** Login e-mail; unique across all tenants; stored lower case. */
  email: string;
  /** The spec-notes §5 password rule applies (8+ characters, a letter and a digit or symbol); omitted → generated. */
  password?: string | undefined;
  /** Display name; must not be empty (at most 200 characters). */
  fullName: string;
  /** 1 system, 2 sales, 3 MSP, 4 customer (docs/architecture.md "Tenancy"). */
  role: Role;
  /** Required for role 3 (an existing MSP); refused for the other roles. */
  mspId?: number | undefined;
  /** Required for role 4 (an existing customer, whose MSP the admin gets); refused for the other roles. */
  customerId?: number | undefined;
}

/** The admin {@link createAdmin} wrote. */
export interface CreatedAdmin {
  id: number;
  email: string;
  role: Role;
  mspId: number | null;
  customerId: number | null;
  /** Only when the password was generated: shown once, stored only as its argon2id hash. */
  generatedPassword?: string;
}

const ROLE_NAMES: Readonly<Record<Role, string>> = {
  [Role.System]: 'system',
  [Role.Sales]: 'sales',
  [Role.Msp]: 'MSP',
  [Role.Customer]: 'customer',
};

function firstIssue(result: { error: { issues: ReadonlyArray<{ message: string }> } }): string {
  return result.error.issues[0]?.message ?? 'invalid';
}

/** Checks the fields that need no database; returns them normalised. @throws Error naming the bad field */
function validate(input: CreateAdminInput): { email: string; fullName: string; password: string; generated: boolean } {
  if (!isRole(input.role)) throw new Error(`Invalid role ${String(input.role)}: expected 1, 2, 3 or 4.`);
  const name = ROLE_NAMES[input.role];
  for (const [key, value] of [
    ['mspId', input.mspId],
    ['customerId', input.customerId],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value <= 0)) {
      throw new Error(`Invalid ${key} ${value}: expected a positive integer.`);
    }
  }
  if (input.role === Role.Msp && input.mspId === undefined) throw new Error('An MSP admin needs the id of its MSP.');
  if (input.role === Role.Customer && input.customerId === undefined) {
    throw new Error('A customer admin needs the id of its customer.');
  }
  if (input.role !== Role.Msp && input.mspId !== undefined) {
    throw new Error(
      input.role === Role.Customer
        ? "A customer admin's MSP is its customer's: give only the customer id."
        : `A ${name} admin belongs to no MSP: omit the MSP id.`,
    );
  }
  if (input.role !== Role.Customer && input.customerId !== undefined) {
    throw new Error(`A ${name} admin belongs to no customer: omit the customer id.`);
  }
  const email = emailSchema.safeParse(input.email);
  if (!email.success) throw new Error(`Invalid admin e-mail: ${firstIssue(email)}`);
  const fullName = requiredText.safeParse(input.fullName);
  if (!fullName.success) throw new Error(`Invalid admin name: ${firstIssue(fullName)}`);
  const generated = input.password === undefined;
  const password = newPasswordSchema.safeParse(input.password ?? generatePassword());
  if (!password.success) throw new Error(`Invalid admin password: ${firstIssue(password)}`);
  return { email: email.data, fullName: fullName.data, password: password.data, generated };
}

/**
 * Creates a console admin (`cordon create-admin`, docs/operations.md): argon2id password hash as for
 * login, the spec-notes §5 e-mail and password rules of the shared schemas. A role-3 admin joins an
 * existing MSP; a role-4 admin an existing customer and that customer's MSP. Not the MSP's or
 * customer's primary admin (`is_default` false). Goes through the mutation path (audit
 * `admin.create`, no topics): on any error nothing is written.
 * @param caller who asks; the CLI passes {@link OPERATOR} (deployment-wide, like a system admin)
 * @returns the new admin, with `generatedPassword` when no password was given
 * @throws Error with a clear message for a bad field, a missing MSP or customer, or an e-mail in use
 */
export async function createAdmin(deps: CoreDeps, caller: Caller, input: CreateAdminInput): Promise<CreatedAdmin> {
  const valid = validate(input);
  const inUse = () => new Error(`An admin with the e-mail ${valid.email} already exists.`);
  const passwordHash = await hashPassword(valid.password);
  const at = nowIso(deps.now());
  const created = await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'admin.create', entity: 'admin' }, conflict: inUse },
    async (trx, note) => {
      if (await repo.emailTaken(trx, valid.email)) throw inUse();
      let mspId: number | null = null;
      let customerId: number | null = null;
      if (input.role === Role.Msp && input.mspId !== undefined) {
        if (!(await mspVisible(trx, EVERYTHING, Role.System, input.mspId))) {
          throw new Error(`MSP ${input.mspId} does not exist.`);
        }
        mspId = input.mspId;
      }
      if (input.role === Role.Customer && input.customerId !== undefined) {
        const customer = await customerTenant(trx, EVERYTHING, input.customerId);
        if (!customer) throw new Error(`Customer ${input.customerId} does not exist.`);
        mspId = customer.mspId;
        customerId = customer.id;
      }
      const admin = {
        email: valid.email,
        full_name: valid.fullName,
        role: input.role,
        msp_id: mspId,
        customer_id: customerId,
        is_default: false,
      };
      const id = await repo.insertAdmin(trx, { ...admin, password_hash: passwordHash }, at);
      note.entityId = id;
      note.mspId = mspId;
      note.customerId = customerId;
      note.after = auditView(id, admin);
      return { id, email: valid.email, role: input.role, mspId, customerId };
    },
  );
  return valid.generated ? { ...created, generatedPassword: valid.password } : created;
}
