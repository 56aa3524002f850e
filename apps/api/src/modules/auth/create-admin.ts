import { type DatabaseHandle, nowIso } from '@cordon/db';
import { emailSchema, isRole, newPasswordSchema, Role, requiredText } from '@cordon/shared';
import { isUniqueViolation } from '../../lib/db-errors.ts';
import type { TenantScope } from '../../lib/scope.ts';
import { getCustomer } from '../customers/repository.ts';
import { mspVisible } from '../msps/repository.ts';
import { generatePassword } from './bootstrap.ts';
import { emailTaken, insertAdmin } from './repository.ts';
import { hashPassword } from './service.ts';

/** What {@link createAdmin} needs. */
export interface CreateAdminInput {
  /** Login e-mail; unique across all tenants; stored lower case. */
  email: string;
  /** The spec §5 password rule applies (8+ characters, a letter and a digit or symbol); omitted → generated. */
  password?: string | undefined;
  /** Display name; must not be empty (at most 200 characters). */
  fullName: string;
  /** 1 system, 2 sales, 3 MSP, 4 customer (DESIGN.md §4). */
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

// The operator's command acts deployment-wide, like a system admin: the repositories' 'all' scope.
const EVERYTHING: TenantScope = { kind: 'all' };

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
 * Creates a console admin from the command line (`cordon create-admin`, DESIGN.md §3): argon2id
 * password hash as for login (DESIGN.md §6), the spec §5 e-mail and password rules of the shared
 * schemas. A role-3 admin joins an existing MSP; a role-4 admin an existing customer and that
 * customer's MSP. Not the MSP's or customer's primary admin (`is_default` false). One transaction:
 * on any error nothing is written.
 * @returns the new admin, with `generatedPassword` when no password was given
 * @throws Error with a clear message for a bad field, a missing MSP or customer, or an e-mail in use
 */
export async function createAdmin(handle: DatabaseHandle, input: CreateAdminInput): Promise<CreatedAdmin> {
  const valid = validate(input);
  const inUse = () => new Error(`An admin with the e-mail ${valid.email} already exists.`);
  const passwordHash = await hashPassword(valid.password);
  const at = nowIso();
  const created = await handle.db
    .transaction()
    .execute(async (trx) => {
      if (await emailTaken(trx, valid.email)) throw inUse();
      let mspId: number | null = null;
      let customerId: number | null = null;
      if (input.role === Role.Msp && input.mspId !== undefined) {
        if (!(await mspVisible(trx, EVERYTHING, Role.System, input.mspId))) {
          throw new Error(`MSP ${input.mspId} does not exist.`);
        }
        mspId = input.mspId;
      }
      if (input.role === Role.Customer && input.customerId !== undefined) {
        const customer = await getCustomer(trx, EVERYTHING, input.customerId);
        if (!customer) throw new Error(`Customer ${input.customerId} does not exist.`);
        mspId = customer.msp_id;
        customerId = customer.id;
      }
      const id = await insertAdmin(
        trx,
        {
          email: valid.email,
          full_name: valid.fullName,
          password_hash: passwordHash,
          role: input.role,
          msp_id: mspId,
          customer_id: customerId,
          is_default: false,
        },
        at,
      );
      return { id, email: valid.email, role: input.role, mspId, customerId };
    })
    .catch((e: unknown) => {
      // A concurrent insert of the same e-mail loses the race on the unique index.
      throw isUniqueViolation(e) ? inUse() : e;
    });
  return valid.generated ? { ...created, generatedPassword: valid.password } : created;
}
