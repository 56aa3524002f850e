import { testDialects } from '@cordon/db/testing';
import { Messages } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, snapshot, type TestApp } from '../../../test/helpers.ts';

describe.each(testDialects())('cloud keys on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates, reads, lists, updates, resets uses and deletes a key, with audit rows and topics', async () => {
    const a = await createTenant(t, 1);
    const base = `/restapi/users/${a.customerId}/cloudkeys`;
    t.published.length = 0;
    const res = await call(t.app, a.customerToken, 'POST', base, {
      key: 'Library pass-1.0',
      description: 'For the library',
      max_uses: 3,
      valid_from: '2030-01-01T00:00:00+01:00',
      expires_after: 900,
    });
    expect(res.statusCode).toBe(201);
    expect(t.published).toEqual(['bypasses']);
    const key = res.json();
    expect(key).toMatchObject({
      key: 'Library pass-1.0',
      description: 'For the library',
      max_uses: 3,
      times_used: 0,
      valid_from: '2029-12-31T23:00:00.000Z',
      valid_to: null,
      expires_after: 900,
      active: true,
    });
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'cloudkey.create')
      .where('entity_id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(audit.customer_id).toBe(a.customerId);
    expect(audit.after_json).not.toContain('Library pass');

    expect((await call(t.app, a.mspToken, 'GET', `${base}/${key.id}`)).json()).toEqual(key);
    const list = (await call(t.app, a.customerToken, 'GET', `${base}?sortkey=name&filter=library`)).json();
    expect(list).toEqual({ total: 1, data: [key] });
    const all = (await call(t.app, a.customerToken, 'GET', `${base}?sortkey=key&sortdir=desc`)).json();
    expect(all.data.map((k: { key: string }) => k.key)).toEqual(['Tenant 1 key', 'Library pass-1.0']);

    await t.handle.db.updateTable('cloud_keys').set({ times_used: 2 }).where('id', '=', key.id).execute();
    const upd = await call(t.app, a.customerToken, 'POST', `${base}/${key.id}`, {
      reset_uses: true,
      active: false,
      max_uses: null,
    });
    expect(upd.statusCode).toBe(200);
    expect(upd.json()).toMatchObject({ times_used: 0, active: false, max_uses: null, description: 'For the library' });

    const del = await call(t.app, a.customerToken, 'DELETE', `${base}/${key.id}`);
    expect(del.json()).toEqual({ deleted: true });
    expect((await call(t.app, a.customerToken, 'GET', `${base}/${key.id}`)).statusCode).toBe(404);
  });

  it('refuses bad input with the spec messages and changes nothing', async () => {
    const a = await createTenant(t, 1);
    const base = `/restapi/users/${a.customerId}/cloudkeys`;
    const before = await snapshot(t.handle);
    const bad = await call(t.app, a.customerToken, 'POST', base, { key: 'no_underscores!' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toEqual({ key: Messages.keyChars });
    const short = await call(t.app, a.customerToken, 'POST', base, { key: 'abc' });
    expect(short.json().fields).toEqual({ key: Messages.min5 });
    const window = await call(t.app, a.customerToken, 'POST', base, {
      key: 'Window key',
      valid_from: '2030-01-02T00:00:00Z',
      valid_to: '2030-01-01T00:00:00Z',
    });
    expect(window.statusCode).toBe(400);
    expect(window.json().fields).toEqual({ valid_to: 'Valid to must be after valid from.' });
    const tooShort = await call(t.app, a.customerToken, 'POST', base, { key: 'Quick key', expires_after: 5 });
    expect(tooShort.statusCode).toBe(400);
    const dup = await call(t.app, a.customerToken, 'POST', base, { key: 'Tenant 1 key' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().fields).toEqual({ key: 'A cloud key with this key already exists.' });
    expect(await snapshot(t.handle)).toBe(before);
  });

  it('deleting or deactivating a key ends the bypasses it started', async () => {
    const a = await createTenant(t, 1);
    const base = `/restapi/users/${a.customerId}/cloudkeys`;
    const now = Date.now();
    await t.handle.db
      .insertInto('bypasses')
      .values({
        customer_id: a.customerId,
        cloud_key_id: a.cloudKeyId,
        client_ip: '10.1.0.9',
        started_at: now,
        expires_at: now + 600_000,
      })
      .execute();
    t.published.length = 0;
    await call(t.app, a.customerToken, 'POST', `${base}/${a.cloudKeyId}`, { active: false });
    expect(t.published).toEqual(['bypasses']);
    expect(await t.handle.db.selectFrom('bypasses').selectAll().execute()).toEqual([]);
  });
});
