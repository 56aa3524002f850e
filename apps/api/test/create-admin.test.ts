import { admins, OPERATOR } from '@cordon/core';
import type { DatabaseHandle } from '@cordon/db';
import { testDialects } from '@cordon/db/testing';
import { Role } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

type CreateAdminInput = admins.CreateAdminInput;
/** Core's `createAdmin` as `cordon create-admin` calls it: the operator, on `handle`. */
const createAdmin = (handle: DatabaseHandle, input: CreateAdminInput) =>
  admins.createAdmin(admins.operatorDeps(handle), OPERATOR, input);

import { claimsOf, createTenant, createTestApp, login, snapshot, type TenantFixture, type TestApp } from './helpers.ts';

describe.each(testDialects())('createAdmin on %s', (dialect) => {
  let t: TestApp;
  let tenant: TenantFixture;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    tenant = await createTenant(t, 1);
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates admins of every role that log in with the right claims', async () => {
    const cases: Array<[CreateAdminInput, { vue_role: number; msp_id: number | null; user_id: number | null }]> = [
      [
        { email: 'Ops@Example.test', password: 'Secr3t-pass', fullName: 'Ops', role: Role.System },
        { vue_role: 1, msp_id: null, user_id: null },
      ],
      [
        { email: 'sales@example.test', password: 'Secr3t-pass', fullName: 'Sales', role: Role.Sales },
        { vue_role: 2, msp_id: null, user_id: null },
      ],
      [
        { email: 'tech@example.test', password: 'Secr3t-pass', fullName: 'Tech', role: Role.Msp, mspId: tenant.mspId },
        { vue_role: 3, msp_id: tenant.mspId, user_id: null },
      ],
      [
        {
          email: 'it@example.test',
          password: 'Secr3t-pass',
          fullName: 'IT',
          role: Role.Customer,
          customerId: tenant.customerId,
        },
        { vue_role: 4, msp_id: tenant.mspId, user_id: tenant.customerId },
      ],
    ];
    for (const [input, claims] of cases) {
      const admin = await createAdmin(t.handle, input);
      expect(admin.email).toBe(input.email.toLowerCase());
      expect(admin.generatedPassword).toBeUndefined();
      const token = await login(t.app, input.email.toLowerCase(), 'Secr3t-pass');
      expect(claimsOf(token)).toMatchObject({ ...claims, name: input.fullName, is_default: false });
    }
    const row = await t.handle.db
      .selectFrom('admins')
      .select('password_hash')
      .where('email', '=', 'ops@example.test')
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
  });

  it('generates a password satisfying the spec rule when none is given, returned once', async () => {
    const admin = await createAdmin(t.handle, { email: 'gen@example.test', fullName: 'Gen', role: Role.System });
    expect(admin.generatedPassword).toMatch(/^.{8,}$/);
    await login(t.app, 'gen@example.test', admin.generatedPassword ?? '');
  });

  it('refuses bad input with a clear error and writes nothing', async () => {
    const base = { email: 'new@example.test', password: 'Secr3t-pass', fullName: 'New' };
    const refusals: Array<[CreateAdminInput, RegExp]> = [
      [{ ...base, email: 'msp1@example.test', role: Role.System }, /already exists/],
      [{ ...base, email: 'MSP1@example.test', role: Role.System }, /already exists/],
      [{ ...base, email: 'not-an-email', role: Role.System }, /Invalid admin e-mail/],
      [{ ...base, password: 'short1', role: Role.System }, /at least 8 characters/],
      [{ ...base, password: 'lettersonly', role: Role.System }, /Invalid admin password/],
      [{ ...base, fullName: '  ', role: Role.System }, /Invalid admin name/],
      [{ ...base, role: Role.Msp }, /needs the id of its MSP/],
      [{ ...base, role: Role.Msp, mspId: 9999 }, /MSP 9999 does not exist/],
      [{ ...base, role: Role.Customer }, /needs the id of its customer/],
      [{ ...base, role: Role.Customer, customerId: 9999 }, /Customer 9999 does not exist/],
      [{ ...base, role: Role.Customer, customerId: tenant.customerId, mspId: tenant.mspId }, /give only the customer/],
      [{ ...base, role: Role.System, mspId: tenant.mspId }, /belongs to no MSP/],
      [{ ...base, role: Role.Msp, mspId: tenant.mspId, customerId: tenant.customerId }, /belongs to no customer/],
      [{ ...base, role: 7 as Role }, /Invalid role/],
    ];
    const before = await snapshot(t.handle);
    for (const [input, message] of refusals) {
      await expect(createAdmin(t.handle, input), JSON.stringify(input)).rejects.toThrow(message);
    }
    expect(await snapshot(t.handle)).toBe(before);
  });
});
