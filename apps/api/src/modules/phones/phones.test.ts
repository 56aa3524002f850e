import { execFileSync } from 'node:child_process';
import { testDialects } from '@cordon/db/testing';
import { dotHostName } from '@cordon/shared';
import { XMLValidator } from 'fast-xml-parser';
import { parse } from 'plist';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  createEnvironment,
  createTenant,
  createTestApp,
  TEST_PHONE_SETUP,
  type TestApp,
} from '../../../test/helpers.ts';

/** A parsed plist dictionary. */
type Dict = Record<string, unknown>;

/**
 * Checks a `.mobileconfig` as iOS and macOS read it (Apple's Configuration Profile Reference,
 * "DNSSettings"): well-formed XML (a strict XML validator and xmllint), a property list (a real plist parser),
 * the top-level Configuration payload and one `com.apple.dnsSettings.managed` payload with
 * DNSProtocol HTTPS and the ServerURL given.
 * @returns the parsed profile
 */
function checkProfile(xml: string, serverUrl: string): Dict {
  expect(XMLValidator.validate(xml)).toBe(true);
  // libxml2's own check (Debian libxml2-utils, installed by .ci/run): well-formed, no network.
  expect(execFileSync('xmllint', ['--noout', '--nonet', '-'], { input: xml, encoding: 'utf8' })).toBe('');
  const profile = parse(xml) as Dict;
  const uuid = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/;
  expect(profile).toMatchObject({ PayloadType: 'Configuration', PayloadVersion: 1, PayloadRemovalDisallowed: false });
  expect(profile.PayloadUUID).toMatch(uuid);
  expect(profile.PayloadIdentifier).toMatch(/^test\.cordon\.dns\.cordon\.(device|location)\.\d+$/);
  expect(profile.PayloadDisplayName).toMatch(/^Cordon DNS \(.+\)$/);
  const content = profile.PayloadContent as Dict[];
  expect(content).toHaveLength(1);
  const dns = content[0]!;
  expect(dns).toMatchObject({
    PayloadType: 'com.apple.dnsSettings.managed',
    PayloadVersion: 1,
    PayloadIdentifier: `${profile.PayloadIdentifier}.dns`,
    DNSSettings: { DNSProtocol: 'HTTPS', ServerURL: serverUrl },
  });
  expect(dns.PayloadUUID).toMatch(uuid);
  expect(dns.PayloadUUID).not.toBe(profile.PayloadUUID);
  expect(typeof dns.PayloadDisplayName).toBe('string');
  return profile;
}

describe.each(testDialects())('phone set-up on %s (docs/agent.md "Phones")', (dialect) => {
  let t: TestApp;
  afterEach(async () => {
    await t.close();
  });

  describe('with the operator settings', () => {
    beforeEach(async () => {
      t = await createTestApp(dialect);
    });

    it("answers the settings and a device's and a virtual location's profile, to the customer and its MSP", async () => {
      const a = await createTenant(t, 1);
      const env = await createEnvironment(t, a.customerId, 1);
      const settings = await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}/phone-setup`);
      expect(settings.statusCode, settings.body).toBe(200);
      expect(settings.json()).toEqual({ doh_url: 'https://dns.cordon.test', dot_hostname: 'dot.cordon.test' });

      const device = (
        await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}/devices/${env.deviceId}`)
      ).json() as { key: string; name: string };
      // What the console shows for Android's Private DNS.
      expect(dotHostName(device.key, TEST_PHONE_SETUP.dotHostname)).toMatch(/^[a-z2-7]{52}\.dot\.cordon\.test$/);
      const url = `/restapi/users/${a.customerId}/phone-setup/devices/${env.deviceId}/mobileconfig`;
      const res = await call(t.app, a.customerToken, 'GET', url);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('application/x-apple-aspen-config; charset=utf-8');
      expect(res.headers['content-disposition']).toBe('attachment; filename="cordon-dns.mobileconfig"');
      expect(res.headers['cache-control']).toBe('no-store');
      const profile = checkProfile(res.body, `https://dns.cordon.test/dns-query/${device.key}`);
      expect(profile.PayloadDisplayName).toBe(`Cordon DNS (${device.name})`);
      // The same file on a second download (stable identifiers and UUIDs), and to the MSP.
      expect((await call(t.app, a.mspToken, 'GET', url)).body).toBe(res.body);

      const location = (
        await call(
          t.app,
          a.customerToken,
          'GET',
          `/restapi/users/${a.customerId}/locations/virtual/${env.virtualLocationId}`,
        )
      ).json() as { key: string };
      const loc = await call(
        t.app,
        a.customerToken,
        'GET',
        `/restapi/users/${a.customerId}/phone-setup/locations/virtual/${env.virtualLocationId}/mobileconfig`,
      );
      expect(loc.statusCode, loc.body).toBe(200);
      checkProfile(loc.body, `https://dns.cordon.test/dns-query/${location.key}`);
      // A virtual location asked for as roaming is not found; a static location has no such route.
      expect(
        (
          await call(
            t.app,
            a.customerToken,
            'GET',
            `/restapi/users/${a.customerId}/phone-setup/locations/roaming/${env.virtualLocationId}/mobileconfig`,
          )
        ).statusCode,
      ).toBe(404);
      expect(
        (
          await call(
            t.app,
            a.customerToken,
            'GET',
            `/restapi/users/${a.customerId}/phone-setup/locations/staticip/${a.locationId}/mobileconfig`,
          )
        ).statusCode,
      ).toBe(400);
      // No token, no profile.
      expect((await call(t.app, undefined, 'GET', url)).statusCode).toBe(401);
    });

    it('escapes a device name with XML specials in the profile', async () => {
      const a = await createTenant(t, 1);
      const env = await createEnvironment(t, a.customerId, 1);
      // As an agent may name itself at enrolment (the console's own form refuses these characters).
      await t.handle.db
        .updateTable('devices')
        .set({ name: 'Tom & Jerry <phone> "1"' })
        .where('id', '=', env.deviceId)
        .execute();
      const res = await call(
        t.app,
        a.customerToken,
        'GET',
        `/restapi/users/${a.customerId}/phone-setup/devices/${env.deviceId}/mobileconfig`,
      );
      const device = (
        await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}/devices/${env.deviceId}`)
      ).json() as { key: string };
      const profile = checkProfile(res.body, `https://dns.cordon.test/dns-query/${device.key}`);
      expect(profile.PayloadDisplayName).toBe('Cordon DNS (Tom & Jerry <phone> "1")');
    });
  });

  it('answers null settings and 404 profiles when the operator set no public DoH URL or DoT host name', async () => {
    t = await createTestApp(dialect, { phoneSetup: null });
    const a = await createTenant(t, 1);
    const env = await createEnvironment(t, a.customerId, 1);
    const settings = await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}/phone-setup`);
    expect(settings.json()).toEqual({ doh_url: null, dot_hostname: null });
    const res = await call(
      t.app,
      a.customerToken,
      'GET',
      `/restapi/users/${a.customerId}/phone-setup/devices/${env.deviceId}/mobileconfig`,
    );
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'ERR_NOT_FOUND' });
  });
});
