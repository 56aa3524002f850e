import type { LightMyRequestResponse } from 'fastify';
import { call, login, type TestApp } from './helpers.ts';

/** One tenant for the accounts tests: an MSP and one customer, with their primary admins logged in. */
export interface AccountsTenant {
  mspId: number;
  customerId: number;
  /** The MSP's primary (`is_default`) admin. */
  mspAdminId: number;
  mspEmail: string;
  mspToken: string;
  customerAdminId: number;
  customerEmail: string;
  customerToken: string;
}

/** The password of the fixture's admins. */
export const TENANT_PASSWORD = 'Passw0rd!';

/**
 * Creates an MSP and a customer through the API as the system admin (only what accounts need, so
 * these tests do not depend on locations or policies). `n` makes names and e-mails unique.
 * @throws Error when a call fails
 */
export async function createAccountsTenant(t: TestApp, n: number): Promise<AccountsTenant> {
  const ok = async (res: LightMyRequestResponse) => {
    if (res.statusCode >= 300) throw new Error(`${res.statusCode} ${res.body}`);
    return res.json();
  };
  const mspEmail = `msp${n}@example.test`;
  const customerEmail = `cust${n}@example.test`;
  const msp = await ok(
    await call(t.app, t.rootToken, 'POST', '/restapi/msp', {
      name: `MSP ${n}`,
      company_name: `MSP ${n} Ltd`,
      admin_email: mspEmail,
      admin_password: TENANT_PASSWORD,
    }),
  );
  const customer = await ok(
    await call(t.app, t.rootToken, 'POST', '/restapi/users/', {
      accountName: `Customer ${n}`,
      msp_id: msp.id,
      timezone: 'Europe/Berlin',
      admin_email: customerEmail,
      admin_password: TENANT_PASSWORD,
    }),
  );
  const idOf = async (email: string) =>
    (await t.handle.db.selectFrom('admins').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;
  return {
    mspId: msp.id,
    customerId: customer.id,
    mspAdminId: await idOf(mspEmail),
    mspEmail,
    mspToken: await login(t.app, mspEmail, TENANT_PASSWORD),
    customerAdminId: await idOf(customerEmail),
    customerEmail,
    customerToken: await login(t.app, customerEmail, TENANT_PASSWORD),
  };
}
