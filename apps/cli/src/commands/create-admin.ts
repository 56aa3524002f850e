import { admins, OPERATOR } from '@cordon/core';
import { migrateToLatest } from '@cordon/db';
import { Role } from '@cordon/shared';
import type { ServeConfig } from '../config.ts';
import { openConfiguredDatabase } from '../database.ts';

/** `--role` names → roles (docs/architecture.md "Tenancy"). */
export const ROLE_BY_NAME: Readonly<Record<string, Role>> = {
  system: Role.System,
  sales: Role.Sales,
  msp: Role.Msp,
  customer: Role.Customer,
};

/** The flags of `cordon create-admin`, as commander gives them (strings; env already applied). */
export interface CreateAdminFlags {
  email?: string | undefined;
  password?: string | undefined;
  name?: string | undefined;
  role?: string | undefined;
  mspId?: string | undefined;
  customerId?: string | undefined;
}

/** A positive integer flag, or undefined when absent. @throws Error naming the flag otherwise */
function idFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,15}$/.test(value)) throw new Error(`${flag} must be a positive integer, got ${value}`);
  return Number(value);
}

/**
 * `cordon create-admin`: adds a console admin (docs/operations.md) with core's `admins.createAdmin`, as the
 * operator (audit `admin.create`), after
 * bringing the schema up to date. Without `--password` (or `CORDON_NEW_ADMIN_PASSWORD`) a password is
 * generated and printed once. `--name` defaults to the e-mail, as the API's MSP/customer creation does.
 * @throws Error (nothing written) for an unknown role, a malformed id, or any refusal of `createAdmin`
 */
export async function runCreateAdmin(
  config: Pick<ServeConfig, 'databaseUrl' | 'dataDir'>,
  flags: CreateAdminFlags,
  print: (line: string) => void,
): Promise<void> {
  const roleName = flags.role ?? '';
  const role = Object.hasOwn(ROLE_BY_NAME, roleName) ? ROLE_BY_NAME[roleName] : undefined;
  if (role === undefined) {
    throw new Error(`--role must be one of ${Object.keys(ROLE_BY_NAME).join(', ')}, got ${roleName || 'nothing'}`);
  }
  const mspId = idFlag('--msp-id', flags.mspId);
  const customerId = idFlag('--customer-id', flags.customerId);
  const email = flags.email ?? '';
  const handle = openConfiguredDatabase(config);
  try {
    await migrateToLatest(handle);
    const admin = await admins.createAdmin(admins.operatorDeps(handle), OPERATOR, {
      email,
      password: flags.password,
      fullName: flags.name ?? email,
      role,
      mspId,
      customerId,
    });
    const tenant = [
      admin.mspId === null ? '' : ` msp ${admin.mspId}`,
      admin.customerId === null ? '' : ` customer ${admin.customerId}`,
    ]
      .join('')
      .trim();
    print(`created ${roleName} admin ${admin.email} (id ${admin.id}${tenant ? `, ${tenant}` : ''})`);
    if (admin.generatedPassword) print(`generated password (shown once): ${admin.generatedPassword}`);
  } finally {
    await handle.close();
  }
}
