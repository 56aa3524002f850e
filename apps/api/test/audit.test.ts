import { testDialects } from '@cordon/db/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, call, createTestApp, type TestApp } from './helpers.ts';

/** The API's mutations go through core's `mutate()`: one audit row each, with the caller and its address. */
describe.each(testDialects())('audit trail through the API on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  const audits = () => t.handle.db.selectFrom('audit_log').selectAll().orderBy('id').execute();

  it('records who, the client address and before/after of an update; never a password hash', async () => {
    const created = await call(t.app, t.rootToken, 'POST', '/restapi/msp', {
      name: 'Acme',
      company_name: 'Acme Ltd',
      admin_email: 'boss@acme.test',
      admin_password: 'Passw0rd!',
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as number;
    const res = await t.app.inject({
      method: 'PUT',
      url: `/restapi/msp/${id}`,
      headers: { authorization: `Bearer ${t.rootToken}` },
      payload: { company_name: 'Acme GmbH' },
      remoteAddress: '198.51.100.23',
    });
    expect(res.statusCode).toBe(200);
    const rows = await audits();
    // The bootstrap of the test's system admin, its login (docs/api.md "Audit log"), then the two calls.
    expect(rows.map((r) => r.action)).toEqual(['admin.bootstrap', 'auth.login', 'msp.create', 'msp.update']);
    const [, , create, update] = rows;
    expect(create).toMatchObject({ admin_email: ADMIN.email, role: 1, msp_id: id, entity: 'msp', entity_id: id });
    expect(JSON.parse(create?.after_json ?? '{}')).toMatchObject({ name: 'Acme', admin: { email: 'boss@acme.test' } });
    expect(update).toMatchObject({ client_ip: '198.51.100.23', entity_id: id });
    expect(JSON.parse(update?.before_json ?? '{}')).toMatchObject({ company_name: 'Acme Ltd' });
    expect(JSON.parse(update?.after_json ?? '{}')).toMatchObject({ company_name: 'Acme GmbH' });
    for (const row of rows) expect(`${row.before_json} ${row.after_json}`).not.toMatch(/argon2|password/);
  });

  it('writes no audit row and publishes nothing for a refused mutation', async () => {
    await call(t.app, t.rootToken, 'POST', '/restapi/msp', { name: 'Acme', company_name: 'Acme Ltd' });
    const before = (await audits()).length;
    const published = t.published.length;
    const res = await call(t.app, t.rootToken, 'POST', '/restapi/msp', { name: 'Acme', company_name: 'Other' });
    expect(res.statusCode).toBe(409);
    expect(await audits()).toHaveLength(before);
    expect(t.published.length).toBe(published);
  });
});
