import { randomBytes } from 'node:crypto';
import { type DatabaseHandle, nowIso } from '@cordon/db';
import { emailSchema, newPasswordSchema, Role } from '@cordon/shared';
import { hashPassword } from './service.ts';

/** A random password satisfying the spec §5 rule: 24 base64url characters plus a letter and a digit. */
export function generatePassword(): string {
  return `${randomBytes(18).toString('base64url')}a7`;
}

/**
 * First run (DESIGN.md §6): when no system admin (role 1) exists, creates one from `email`
 * (default 'admin@cordon.local') and `password`, or a generated password that is returned once.
 * When one exists, nothing changes.
 * @returns `created`, the admin's e-mail, and `generatedPassword` only when one was generated
 * @throws Error when the given e-mail or password breaks the spec §5 rules
 */
export async function ensureSystemAdmin(
  handle: DatabaseHandle,
  opts: { email?: string; password?: string },
): Promise<{ created: boolean; email: string; generatedPassword?: string }> {
  const existing = await handle.db
    .selectFrom('admins')
    .select('email')
    .where('role', '=', Role.System)
    .orderBy('id')
    .executeTakeFirst();
  if (existing) return { created: false, email: existing.email };

  const email = emailSchema.safeParse(opts.email ?? 'admin@cordon.local');
  if (!email.success) throw new Error(`Invalid admin e-mail: ${email.error.issues[0]?.message}`);
  const generated = opts.password === undefined ? generatePassword() : undefined;
  const password = newPasswordSchema.safeParse(opts.password ?? generated);
  if (!password.success) throw new Error(`Invalid admin password: ${password.error.issues[0]?.message}`);

  const now = nowIso();
  await handle.db
    .insertInto('admins')
    .values({
      email: email.data,
      full_name: 'System Administrator',
      password_hash: await hashPassword(password.data),
      role: Role.System,
      msp_id: null,
      customer_id: null,
      is_default: 1,
      twofa_enabled: 0,
      twofa_secret: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return generated === undefined
    ? { created: true, email: email.data }
    : { created: true, email: email.data, generatedPassword: generated };
}
