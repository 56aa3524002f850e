import { reports } from '@cordon/core';
import { testDialects } from '@cordon/db/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TenantFixture, type TestApp } from '../../../test/helpers.ts';

describe.each(testDialects())('Power BI on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
  });
  afterEach(async () => {
    await t.close();
  });
  const uuidOf = async (id: number) =>
    (await t.handle.db.selectFrom('customers').select('uuid_str').where('id', '=', id).executeTakeFirstOrThrow())
      .uuid_str;

  it('says it is not configured, and refuses an embed then', async () => {
    const config = await call(t.app, a.customerToken, 'GET', '/restapi/powerbi/config');
    expect(config.json()).toEqual({ configured: false, embed_url: null });
    const embed = await call(t.app, a.customerToken, 'POST', '/restapi/oauth/powerbi', {
      rid: 'r1',
      uuid: await uuidOf(a.customerId),
    });
    expect(embed.statusCode).toBe(409);
    expect(embed.json().error).toBe('Power BI is not configured.');
  });

  it('answers the embed of a visible customer once configured, 404 for another tenant', async () => {
    await t.handle.db
      .insertInto('settings')
      .values({ key: reports.POWERBI_SETTING, value: 'https://app.powerbi.com/reportEmbed' })
      .execute();
    expect((await call(t.app, a.mspToken, 'GET', '/restapi/powerbi/config')).json()).toEqual({
      configured: true,
      embed_url: 'https://app.powerbi.com/reportEmbed',
    });
    const own = await call(t.app, a.mspToken, 'POST', '/restapi/oauth/powerbi', {
      rid: 'r 1',
      uuid: await uuidOf(a.customerId),
    });
    expect(own.statusCode, own.body).toBe(200);
    expect(own.json()).toEqual({
      embed_url: 'https://app.powerbi.com/reportEmbed?reportId=r+1',
      rid: 'r 1',
      customer_id: a.customerId,
    });
    const foreign = await call(t.app, a.mspToken, 'POST', '/restapi/oauth/powerbi', {
      rid: 'r1',
      uuid: await uuidOf(b.customerId),
    });
    expect(foreign.statusCode).toBe(404);
    const bad = await call(t.app, a.mspToken, 'POST', '/restapi/oauth/powerbi', { rid: '' });
    expect(bad.statusCode).toBe(400);
  });
});
