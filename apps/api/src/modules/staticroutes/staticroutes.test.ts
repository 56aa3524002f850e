import { testDialects } from '@cordon/db/testing';
import { Messages } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, snapshot, type TestApp } from '../../../test/helpers.ts';

describe.each(testDialects())('static routes on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates, reads, lists, updates and deletes routes with normalised input, audited and published', async () => {
    const a = await createTenant(t, 1);
    t.published.length = 0;
    const created = await call(t.app, a.customerToken, 'POST', '/restapi/staticroutes', {
      domain: ' Lab.Example. ',
      resolver: '[FD00:0:0::53]:5353',
      description: 'Lab DNS',
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(t.published).toEqual(['staticroutes']);
    const route = created.json();
    expect(route).toMatchObject({
      user_id: a.customerId,
      domain: 'lab.example',
      resolver: '[fd00::53]:5353',
      description: 'Lab DNS',
    });
    // The MSP admin names the customer; a customer admin's own is the default.
    const list = await call(t.app, a.mspToken, 'GET', `/restapi/staticroutes?user_id=${a.customerId}`);
    expect(list.json().data.map((r: { domain: string }) => r.domain)).toEqual(['corp1.example', 'lab.example']);
    expect(list.json().total).toBe(2);
    const page = await call(t.app, a.customerToken, 'GET', '/restapi/staticroutes?sortdir=desc&limit=1&filter=LAB');
    expect(page.json()).toMatchObject({ total: 1, data: [{ id: route.id }] });
    expect((await call(t.app, a.customerToken, 'GET', `/restapi/staticroutes/${route.id}`)).json()).toEqual(route);

    const upd = await call(t.app, a.mspToken, 'POST', `/restapi/staticroutes/${route.id}`, { resolver: '10.1.2.3' });
    expect(upd.statusCode, upd.body).toBe(200);
    expect(upd.json()).toMatchObject({ domain: 'lab.example', resolver: '10.1.2.3:53', description: 'Lab DNS' });

    const del = await call(t.app, a.customerToken, 'DELETE', `/restapi/staticroutes/${route.id}`);
    expect(del.json()).toEqual({ deleted: true });
    expect((await call(t.app, a.customerToken, 'GET', `/restapi/staticroutes/${route.id}`)).statusCode).toBe(404);

    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'entity_id', 'customer_id', 'msp_id'])
      .where('entity', '=', 'static_route')
      .where('entity_id', '=', route.id)
      .orderBy('id')
      .execute();
    expect(audit).toEqual(
      ['staticroute.create', 'staticroute.update', 'staticroute.delete'].map((action) => ({
        action,
        entity_id: route.id,
        customer_id: a.customerId,
        msp_id: a.mspId,
      })),
    );
  });

  it('refuses bad input with a field error and changes nothing', async () => {
    const a = await createTenant(t, 1);
    const before = await snapshot(t.handle);
    const bad = async (body: unknown, field: string, message?: string) => {
      const res = await call(t.app, a.customerToken, 'POST', '/restapi/staticroutes', body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().fields[field]).toBe(message ?? res.json().fields[field]);
      expect(res.json().fields[field]).toBeTruthy();
    };
    await bad({ domain: 'https://corp.example/x', resolver: '10.0.0.53' }, 'domain', Messages.domainOnly);
    await bad({ domain: '', resolver: '10.0.0.53' }, 'domain', Messages.required);
    for (const resolver of [
      'dns.corp.example',
      '10.0.0.53:0',
      '10.0.0.53:70000',
      '10.0.0.0/8',
      '[fd00::53',
      '[10.0.0.53]:53',
      '',
    ]) {
      await bad({ domain: 'corp.example', resolver }, 'resolver');
    }
    await bad(
      { domain: 'corp.example', resolver: '127.0.0.1' },
      'resolver',
      'Loopback addresses cannot be used as a resolver: 127.0.0.1.',
    );
    await bad(
      { domain: 'corp.example', resolver: '169.254.169.254' },
      'resolver',
      'Link-local addresses cannot be used as a resolver: 169.254.169.254.',
    );
    await bad({ domain: 'corp.example', resolver: '224.0.0.1' }, 'resolver');
    // A system admin or MSP admin must say which customer.
    const noUser = await call(t.app, a.mspToken, 'POST', '/restapi/staticroutes', {
      domain: 'x.example',
      resolver: '10.0.0.1',
    });
    expect(noUser.statusCode).toBe(400);
    expect(noUser.json().fields.user_id).toBe(Messages.required);
    // One route per domain and customer.
    const dup = await call(t.app, a.customerToken, 'POST', '/restapi/staticroutes', {
      domain: 'CORP1.example',
      resolver: '10.0.0.1',
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().fields.domain).toBe('A static route for corp1.example already exists.');
    expect(await snapshot(t.handle)).toBe(before);
    // Private ranges are the normal use; a system admin may route to loopback.
    const priv = await call(t.app, a.customerToken, 'POST', '/restapi/staticroutes', {
      domain: 'x.example',
      resolver: '192.168.1.1:53',
    });
    expect(priv.statusCode).toBe(201);
    const loop = await call(t.app, t.rootToken, 'POST', `/restapi/staticroutes?user_id=${a.customerId}`, {
      domain: 'dev.example',
      resolver: '127.0.0.1:5353',
    });
    expect(loop.statusCode, loop.body).toBe(201);
  });

  it('lets the operator allow special addresses for every admin', async () => {
    await t.close();
    t = await createTestApp(dialect, { claims: { allowSpecial: true } });
    const a = await createTenant(t, 1);
    const res = await call(t.app, a.customerToken, 'POST', '/restapi/staticroutes', {
      domain: 'dev.example',
      resolver: '127.0.0.1:5353',
    });
    expect(res.statusCode, res.body).toBe(201);
  });
});
