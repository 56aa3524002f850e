import { testDialects } from '@cordon/db/testing';
import { Messages } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  createTestApp,
  snapshot,
  type TenantFixture,
  type TestApp,
} from '../../../test/helpers.ts';

describe.each(testDialects())('device exceptions on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates exceptions and rules, counts devices and rules, and hands the rules to the agent', async () => {
    const cust = (method: string, url: string, body?: unknown) => call(t.app, a.customerToken, method, url, body);
    t.published.length = 0;
    const created = await cust('POST', '/restapi/device_exceptions', { name: 'Intranet', description: 'Office names' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ name: 'Intranet', user_id: a.customerId, devices_count: 0, rules_count: 0 });
    expect(t.published).toEqual(['devices']);
    const id = created.json().id;
    const bypass = await cust('POST', `/restapi/device_exceptions/${id}/rules`, {
      domain: 'Corp.Example.',
      rule_type: 'ByPass OTG',
      description: 'Intranet',
    });
    expect(bypass.statusCode).toBe(201);
    expect(bypass.json()).toMatchObject({ domain: 'corp.example', ip: '', resolver: '', rule_type: 'ByPass OTG' });
    const specific = await cust('POST', `/restapi/device_exceptions/${id}/rules`, {
      domain: 'lab.example',
      ip: '192.0.2.0/24',
      resolver: '192.0.2.53:5353',
      rule_type: 'Use Specific Resolver',
    });
    expect(specific.json()).toMatchObject({ ip: '192.0.2.0/24', resolver: '192.0.2.53:5353' });

    const config = (await cust('GET', `/restapi/users/${a.customerId}/devices/config`)).json();
    const enrolled = (
      await t.app.inject({
        method: 'POST',
        url: '/restapi/agent/enrol',
        payload: { install_key: config.install_key, name: 'pc' },
      })
    ).json();
    await cust('POST', `/restapi/users/${a.customerId}/devices/${enrolled.device_id}`, { device_exception_id: id });
    const got = (await cust('GET', `/restapi/device_exceptions/${id}`)).json();
    expect(got).toMatchObject({ devices_count: 1, rules_count: 2 });
    const list = (await cust('GET', `/restapi/device_exceptions?user_id=${a.customerId}`)).json();
    expect(list).toMatchObject({ total: 1, data: [{ id, devices_count: 1, rules_count: 2 }] });
    expect((await cust('GET', `/restapi/device_exceptions?filter=office`)).json().total).toBe(1);
    expect((await call(t.app, t.rootToken, 'GET', '/restapi/device_exceptions')).statusCode).toBe(400);

    const beat = await t.app.inject({
      method: 'POST',
      url: '/restapi/agent/heartbeat',
      payload: { device_key: enrolled.device_key },
    });
    expect(beat.json().config).toMatchObject({
      device_exception: { id, name: 'Intranet' },
      rules: [
        { domain: 'corp.example', ip: '', resolver: '', rule_type: 'ByPass OTG' },
        { domain: 'lab.example', ip: '192.0.2.0/24', resolver: '192.0.2.53:5353', rule_type: 'Use Specific Resolver' },
      ],
    });

    const updated = await cust('PUT', `/restapi/device_exceptions/${id}/rules/${specific.json().id}`, {
      domain: 'lab.example',
      rule_type: 'ByPass OTG',
      resolver: '192.0.2.53',
    });
    // A bypass rule keeps no resolver.
    expect(updated.json()).toMatchObject({ rule_type: 'ByPass OTG', resolver: '' });
    const renamed = await cust('PUT', `/restapi/device_exceptions/${id}`, { name: 'Intranet 2' });
    expect(renamed.json().name).toBe('Intranet 2');
  });

  it("keeps the last rule of an exception in use with the spec's text; validates rules", async () => {
    const cust = (method: string, url: string, body?: unknown) => call(t.app, a.customerToken, method, url, body);
    const id = (await cust('POST', '/restapi/device_exceptions', { name: 'Default' })).json().id;
    const r1 = (
      await cust('POST', `/restapi/device_exceptions/${id}/rules`, { domain: 'a.example', rule_type: 'ByPass OTG' })
    ).json();
    const r2 = (
      await cust('POST', `/restapi/device_exceptions/${id}/rules`, { domain: 'b.example', rule_type: 'ByPass OTG' })
    ).json();
    // Not in use: any rule may go.
    expect((await cust('DELETE', `/restapi/device_exceptions/${id}/rules/${r2.id}`)).json()).toEqual({ deleted: true });
    // In use as the customer's device exception: the last rule stays.
    await cust('POST', `/restapi/users/${a.customerId}/devices/config`, { device_exception_id: id });
    const before = await snapshot(t.handle);
    const last = await cust('DELETE', `/restapi/device_exceptions/${id}/rules/${r1.id}`);
    expect(last.statusCode).toBe(409);
    expect(last.json().error).toBe(Messages.lastItem);
    expect(await snapshot(t.handle)).toBe(before);

    const bad: Array<[unknown, string, string]> = [
      [{ rule_type: 'ByPass OTG' }, 'domain', 'Domain required unless IP is provided.'],
      [{ domain: 'https://x.example/a', rule_type: 'ByPass OTG' }, 'domain', Messages.domainOnly],
      [{ domain: 'x.example', rule_type: 'Use Specific Resolver' }, 'resolver', Messages.required],
      [
        { domain: 'x.example', rule_type: 'Use Specific Resolver', resolver: 'dns.example' },
        'resolver',
        Messages.invalidIp,
      ],
      [{ ip: '300.1.1.1', rule_type: 'ByPass OTG' }, 'ip', 'IP must be valid IP or CIDR.'],
      [{ domain: 'x.example', rule_type: 'Block' }, 'rule_type', 'Please select an option.'],
    ];
    for (const [body, field, message] of bad) {
      const res = await cust('POST', `/restapi/device_exceptions/${id}/rules`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().fields[field]).toBe(message);
    }
    expect(await snapshot(t.handle)).toBe(before);
    const dup = await cust('POST', '/restapi/device_exceptions', { name: 'default' });
    expect(dup.statusCode).toBe(409);

    // Deleting the exception in use by the device configuration: refused unless detached; then its rules go.
    expect((await cust('DELETE', `/restapi/device_exceptions/${id}`)).statusCode).toBe(409);
    expect((await cust('DELETE', `/restapi/device_exceptions/${id}?detach=true`)).json()).toEqual({ deleted: true });
    expect((await cust('GET', `/restapi/users/${a.customerId}/devices/config`)).json().device_exception_id).toBeNull();
    expect(await t.handle.db.selectFrom('device_exception_rules').selectAll().execute()).toEqual([]);
  });
});
