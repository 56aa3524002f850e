import { testDialects } from '@cordon/db/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  createTestApp,
  snapshot,
  type TenantFixture,
  type TestApp,
} from '../../../test/helpers.ts';

/**
 * Address claims are the data plane's tenancy boundary (docs/security.md; docs/decisions.md "Address
 * claims"): one canonical form, no overlap with another customer's claim, and limits on what MSP and
 * customer admins may claim. The fixture's own locations (10.1.0.0/16, 10.2.0.0/16) are assigned by
 * the system admin.
 */
describe.each(testDialects())('address claims on %s', (dialect) => {
  let t: TestApp;
  let victim: TenantFixture;
  let attacker: TenantFixture;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    victim = await createTenant(t, 1);
    attacker = await createTenant(t, 2);
  });
  afterEach(async () => {
    await t.close();
  });

  const locations = (who: TenantFixture) => `/restapi/users/${who.customerId}/locations/staticip`;
  const create = (token: string, who: TenantFixture, addresses: string[], name = 'Site') =>
    call(t.app, token, 'POST', locations(who), { name, addresses });
  const addAddress = (token: string, who: TenantFixture, ip: string) =>
    call(t.app, token, 'POST', `${locations(who)}/${who.locationId}/addresses`, { ip });
  const replace = (token: string, who: TenantFixture, addresses: string[]) =>
    call(t.app, token, 'POST', `${locations(who)}/${who.locationId}`, { addresses });
  /** The body must not give away who holds the other claim. */
  const namesNobody = (body: string) => {
    for (const secret of ['Customer 1', 'MSP 1', 'cust1@', 'Office 1', 'customer_id']) {
      expect(body).not.toContain(secret);
    }
  };

  it("refuses an IPv4-mapped IPv6 spelling of another customer's IPv4 address with 409, not naming the owner", async () => {
    expect((await create(victim.customerToken, victim, ['203.0.113.7'])).statusCode).toBe(201);
    const before = await snapshot(t.handle);
    const message = 'The address 203.0.113.7/32 is already used by another location.';

    const created = await create(attacker.customerToken, attacker, ['::ffff:203.0.113.7/128']);
    expect(created.statusCode).toBe(409);
    expect(created.json()).toEqual({ error: message, code: 'ERR_CONFLICT', fields: { addresses: message } });
    namesNobody(created.body);
    const added = await addAddress(attacker.customerToken, attacker, '::ffff:cb00:7107');
    expect(added.statusCode).toBe(409);
    expect(added.json().fields).toEqual({ ip: message });
    const replaced = await replace(attacker.mspToken, attacker, ['0:0:0:0:0:FFFF:CB00:7107/128']);
    expect(replaced.statusCode).toBe(409);
    namesNobody(replaced.body);
    expect(await snapshot(t.handle)).toBe(before);
  });

  it("refuses a narrower range inside, and a wider range around, another customer's claim with 409", async () => {
    expect((await create(victim.customerToken, victim, ['203.0.113.0/24', '198.51.100.7'])).statusCode).toBe(201);
    expect((await create(victim.customerToken, victim, ['2001:db8:1::/48'], 'V6')).statusCode).toBe(201);
    const before = await snapshot(t.handle);
    const overlap = (ip: string) => `The address ${ip} overlaps an address claimed by another customer.`;

    const cases: Array<[string, string]> = [
      ['203.0.113.9', '203.0.113.9/32'], // inside the victim's /24
      ['::ffff:203.0.113.9', '203.0.113.9/32'], // the same, IPv4-mapped
      ['198.51.100.0/24', '198.51.100.0/24'], // around the victim's /32
      ['::ffff:198.51.100.0/120', '198.51.100.0/24'],
      ['2001:db8:1:2::/64', '2001:db8:1:2::/64'],
    ];
    for (const [input, canonical] of cases) {
      for (const token of [attacker.customerToken, attacker.mspToken]) {
        const res = await create(token, attacker, [input]);
        expect(res.statusCode, input).toBe(409);
        expect(res.json()).toEqual({
          error: overlap(canonical),
          code: 'ERR_CONFLICT',
          fields: { addresses: overlap(canonical) },
        });
        namesNobody(res.body);
      }
    }
    const added = await addAddress(attacker.customerToken, attacker, '203.0.113.128/25');
    expect(added.statusCode).toBe(409);
    expect(added.json().fields).toEqual({ ip: overlap('203.0.113.128/25') });
    const replaced = await replace(attacker.customerToken, attacker, ['192.0.2.0/24', '203.0.113.64/26']);
    expect(replaced.statusCode).toBe(409);
    expect(replaced.json().error).toBe(overlap('203.0.113.64/26'));
    expect(await snapshot(t.handle)).toBe(before);
  });

  it('lets a customer overlap its own claims across its locations, but never duplicate one', async () => {
    expect((await create(victim.customerToken, victim, ['203.0.113.0/24'], 'Campus')).statusCode).toBe(201);
    expect((await create(victim.customerToken, victim, ['203.0.113.9'], 'Library')).statusCode).toBe(201);
    const dup = await create(victim.mspToken, victim, ['::ffff:203.0.113.0/120'], 'Again');
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toBe('The address 203.0.113.0/24 is already used by another location.');
  });

  it('lets a system admin assign an overlapping claim; the owner still re-saves its own addresses', async () => {
    const site = await create(victim.customerToken, victim, ['203.0.113.0/24']);
    expect(site.statusCode).toBe(201);
    const assigned = await create(t.rootToken, attacker, ['203.0.113.128/25', '10.1.2.0/24'], 'Assigned');
    expect(assigned.statusCode).toBe(201);
    expect(assigned.json().addresses.map((a: { ip: string }) => a.ip)).toEqual(['203.0.113.128/25', '10.1.2.0/24']);
    // An exact duplicate is refused even to a system admin: the older claim would always win it.
    const dup = await create(t.rootToken, attacker, ['::ffff:203.0.113.0/120'], 'Dup');
    expect(dup.statusCode).toBe(409);
    // Re-saving the victim's unchanged addresses is not a conflict; adding inside the assignment is.
    const resave = await call(t.app, victim.customerToken, 'POST', `${locations(victim)}/${site.json().id}`, {
      name: 'Renamed',
      addresses: ['203.0.113.0/24'],
    });
    expect(resave.statusCode).toBe(200);
    const inside = await call(t.app, victim.customerToken, 'POST', `${locations(victim)}/${site.json().id}`, {
      addresses: ['203.0.113.0/24', '203.0.113.200'],
    });
    expect(inside.statusCode).toBe(409);
    expect(inside.json().error).toBe('The address 203.0.113.200/32 overlaps an address claimed by another customer.');
  });

  it('refuses /0, over-wide, special-purpose and private ranges to MSP and customer admins with 400, changing nothing', async () => {
    const before = await snapshot(t.handle);
    const cases: Array<[string, string]> = [
      ['0.0.0.0/0', 'The whole address space (/0) cannot be claimed: 0.0.0.0/0.'],
      ['::/0', 'The whole address space (/0) cannot be claimed: ::/0.'],
      ['::ffff:0:0/96', 'The whole address space (/0) cannot be claimed: 0.0.0.0/0.'],
      ['127.0.0.0/8', 'Addresses wider than /24 cannot be claimed: 127.0.0.0/8.'],
      ['198.51.0.0/16', 'Addresses wider than /24 cannot be claimed: 198.51.0.0/16.'],
      ['2001:db8::/32', 'Addresses wider than /48 cannot be claimed: 2001:db8::/32.'],
      ['127.0.0.1', 'Loopback addresses cannot be claimed: 127.0.0.1/32.'],
      ['::ffff:127.0.0.1', 'Loopback addresses cannot be claimed: 127.0.0.1/32.'],
      ['::1', 'Loopback addresses cannot be claimed: ::1/128.'],
      ['169.254.1.1', 'Link-local addresses cannot be claimed: 169.254.1.1/32.'],
      ['224.0.0.0/24', 'Multicast addresses cannot be claimed: 224.0.0.0/24.'],
      ['255.255.255.255', 'Broadcast addresses cannot be claimed: 255.255.255.255/32.'],
      ['10.20.30.0/24', 'Private addresses cannot be claimed: 10.20.30.0/24.'],
      ['fd00::/48', 'Private addresses cannot be claimed: fd00::/48.'],
    ];
    for (const token of [attacker.customerToken, attacker.mspToken]) {
      for (const [input, message] of cases) {
        const created = await create(token, attacker, ['192.0.2.0/24', input]);
        expect(created.statusCode, input).toBe(400);
        expect(created.json(), input).toEqual({
          error: message,
          code: 'ERR_VALIDATION',
          fields: { addresses: message },
        });
        const added = await addAddress(token, attacker, input);
        expect(added.statusCode, input).toBe(400);
        expect(added.json().fields, input).toEqual({ ip: message });
        const replaced = await replace(token, attacker, [input]);
        expect(replaced.statusCode, input).toBe(400);
      }
    }
    expect(await snapshot(t.handle)).toBe(before);
  });

  it('refuses /0 to a system admin too, who may otherwise assign wide, private and loopback ranges', async () => {
    const before = await snapshot(t.handle);
    for (const input of ['0.0.0.0/0', '::/0', '::ffff:0:0/96', '::ffff:0:0/95', '::/8']) {
      const res = await create(t.rootToken, attacker, [input]);
      expect(res.statusCode, input).toBe(400);
      expect(res.json().fields.addresses, input).toMatch(/cannot be claimed/);
    }
    expect(await snapshot(t.handle)).toBe(before);
    const wide = await create(t.rootToken, attacker, ['127.0.0.1/32', '172.16.0.0/12', '2001:db8::/32']);
    expect(wide.statusCode).toBe(201);
  });

  it('serialises concurrent overlapping claims of two customers: exactly one of each pair wins', async () => {
    for (let i = 0; i < 8; i++) {
      const results = await Promise.all([
        create(victim.customerToken, victim, [`198.18.${i}.0/24`], `Wide ${i}`),
        create(attacker.customerToken, attacker, [`198.18.${i}.77`], `Narrow ${i}`),
      ]);
      expect(results.map((r) => r.statusCode).sort(), `round ${i}`).toEqual([201, 409]);
    }
  });
});

describe.each(testDialects())('operator claim settings on %s', (dialect) => {
  it('widen what MSP and customer admins may claim, never to /0', async () => {
    const t = await createTestApp(dialect, {
      claims: { maxPrefixV4: 16, maxPrefixV6: 32, allowPrivate: true, allowSpecial: true },
    });
    try {
      const a = await createTenant(t, 1);
      const url = `/restapi/users/${a.customerId}/locations/staticip`;
      const ok = await call(t.app, a.customerToken, 'POST', url, {
        name: 'Lab',
        addresses: ['127.0.0.1/32', '10.50.0.0/16', '2001:db8::/32', 'fe80::/64'],
      });
      expect(ok.statusCode).toBe(201);
      const wide = await call(t.app, a.customerToken, 'POST', url, { name: 'Wide', addresses: ['192.0.0.0/15'] });
      expect(wide.json().fields).toEqual({ addresses: 'Addresses wider than /16 cannot be claimed: 192.0.0.0/15.' });
      const all = await call(t.app, a.mspToken, 'POST', url, { name: 'All', addresses: ['::ffff:0:0/96'] });
      expect(all.statusCode).toBe(400);
    } finally {
      await t.close();
    }
  });
});
