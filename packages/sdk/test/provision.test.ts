import { readFileSync } from 'node:fs';
import { testDialects } from '@cordon/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  createTestApp,
  login,
  type TenantFixture,
  type TestApp,
} from '../../../apps/api/test/helpers.ts';
import { provision } from '../examples/provision.ts';
import { CordonApiError, createClient, Endpoints } from '../src/index.ts';

it('the README quotes examples/provision.ts verbatim (the example it shows is the one tested)', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const example = readFileSync(new URL('../examples/provision.ts', import.meta.url), 'utf8');
  expect(readme).toContain(`\`\`\`ts\n${example.trimEnd()}\n\`\`\``);
});

/**
 * The README's example (examples/provision.ts) against a real API listening on loopback (issue 26:
 * "a token provisions a customer through the SDK"): an MSP admin's API token creates a customer, a
 * policy and a static-IP location; a foreign tenant's id is refused (404) as for a login; once the
 * token is revoked, the next call fails with 401.
 */
describe.each(testDialects())('SDK provisioning with an API token on %s', (dialect) => {
  let t: TestApp;
  let baseUrl: string;
  let msp: TenantFixture;
  let other: TenantFixture;
  beforeAll(async () => {
    t = await createTestApp(dialect);
    msp = await createTenant(t, 1);
    other = await createTenant(t, 2);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const address = t.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
    baseUrl = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await t.close();
  });

  it('provisions a customer, its policy and location; refuses a foreign id; stops at revocation', async () => {
    const session = await login(t.app, 'msp1@example.test', 'Passw0rd!');
    const minted = await call(t.app, session, 'POST', '/restapi/auth/api-tokens', {
      name: 'provisioning',
      access: 'read-write',
      current_password: 'Passw0rd!',
    });
    expect(minted.statusCode, minted.body).toBe(201);
    const cordon = createClient({ baseUrl: `${baseUrl}/`, token: minted.json().secret });

    const made = await provision(cordon, { customerName: 'Acme Bakery', officeAddress: '203.0.113.10' });
    expect(made.customer).toMatchObject({ accountName: 'Acme Bakery', msp_id: msp.mspId });
    expect(made.policy).toMatchObject({ name: 'Office hours', filtering_level: 'moderate' });
    expect(made.location).toMatchObject({ name: 'Head office', policy_id: made.policy.id });

    // They exist, in the token's MSP, as the system admin reads them.
    const customers = (await call(t.app, t.rootToken, 'GET', `/restapi/users?msp_id=${msp.mspId}`)).json();
    expect(customers.data.map((c: { accountName: string }) => c.accountName).sort()).toEqual([
      'Acme Bakery',
      'Customer 1',
    ]);
    const policy = (await call(t.app, t.rootToken, 'GET', `/restapi/policies/${made.policy.id}`)).json();
    expect(policy).toMatchObject({ name: 'Office hours', user_id: made.customer.id });
    const locations = (
      await call(t.app, t.rootToken, 'GET', `/restapi/users/${made.customer.id}/locations/staticip`)
    ).json();
    expect(locations.data).toEqual([
      expect.objectContaining({
        id: made.location.id,
        policy_id: made.policy.id,
        addresses: [expect.objectContaining({ ip: '203.0.113.10/32' })],
      }),
    ]);
    // The audit names the token.
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'api_token_name'])
      .where('api_token_id', '=', minted.json().id)
      .orderBy('id')
      .execute();
    expect(audit.map((r) => r.api_token_name)).toEqual(audit.map(() => 'provisioning'));
    expect(audit.length).toBeGreaterThanOrEqual(3);

    // A foreign tenant's id: refused exactly as for a login (404, ERR_NOT_FOUND).
    const foreign = await cordon.call(Endpoints.customers.get, { params: { id: other.customerId } }).catch((e) => e);
    expect(foreign).toBeInstanceOf(CordonApiError);
    expect(foreign).toMatchObject({ status: 404, code: 'ERR_NOT_FOUND' });

    // Revoked: the next call fails with 401.
    const revoke = await call(t.app, session, 'DELETE', `/restapi/auth/api-tokens/${minted.json().id}`);
    expect(revoke.statusCode).toBe(200);
    const after = await cordon.api.customers.list().catch((e) => e);
    expect(after).toBeInstanceOf(CordonApiError);
    expect(after).toMatchObject({ status: 401, code: 'ERR_UNAUTHENTICATED' });
  });

  it('answers a bad body as a typed 400 with the fields at fault', async () => {
    const session = await login(t.app, 'msp1@example.test', 'Passw0rd!');
    const secret = (
      await call(t.app, session, 'POST', '/restapi/auth/api-tokens', {
        name: 'fields',
        access: 'read-write',
        current_password: 'Passw0rd!',
      })
    ).json().secret as string;
    const cordon = createClient({ baseUrl, token: secret });
    const bad = await cordon.api.policies
      .create({ body: { user_id: msp.customerId, name: '', filtering_level: 'moderate' } })
      .catch((e) => e);
    expect(bad).toMatchObject({ status: 400, code: 'ERR_VALIDATION' });
    expect(Object.keys(bad.fields)).toEqual(['name']);
  });
});
