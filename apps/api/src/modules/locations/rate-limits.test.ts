import { testDialects } from '@cordon/db/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TestApp } from '../../../test/helpers.ts';

/**
 * `GET /users/{id}/locations/rate-limits` (issue 30; docs/operations.md "Response-rate limiting"):
 * admins see the UDP limits the operator set for their locations.
 */
describe.each(testDialects())('location rate limits on %s', (dialect) => {
  let t: TestApp;
  afterEach(async () => {
    await t.close();
  });

  it("answers the resolver's defaults, to the customer's admins and the MSP's; another tenant gets 404", async () => {
    t = await createTestApp(dialect);
    const a = await createTenant(t, 1);
    const b = await createTenant(t, 2);
    const url = `/restapi/users/${a.customerId}/locations/rate-limits`;
    for (const token of [a.customerToken, a.mspToken, t.rootToken]) {
      const res = await call(t.app, token, 'GET', url);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ location_qps: 5000, unclaimed_rrl_qps: 200 });
    }
    expect((await call(t.app, b.customerToken, 'GET', url)).statusCode).toBe(404);
  });

  it('answers what the operator set; 0 (off) is null', async () => {
    t = await createTestApp(dialect, { dnsRateLimits: { locationQps: 20_000, rrlQps: 0 } });
    const a = await createTenant(t, 1);
    const res = await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}/locations/rate-limits`);
    expect(res.json()).toEqual({ location_qps: 20_000, unclaimed_rrl_qps: null });
  });
});
