import { createTestDatabase, testDialects } from '@cordon/db/testing';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type DeviceTable, devicesPart } from '../src/snapshot/devices.ts';
import { listsPart } from '../src/snapshot/lists.ts';
import { seedTenants } from './helpers/seed.ts';

const silent = pino({ level: 'silent' });
/** More than two of the loaders' 10,000-row pages, so page boundaries are crossed twice. */
const COUNT = 20_005;

describe.each(testDialects())('snapshot loaders read in pages on %s', (dialect) => {
  it('loads every device and list entry across page boundaries', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      const seeded = await seedTenants(handle);
      const now = new Date().toISOString();
      for (let start = 0; start < COUNT; start += 1_000) {
        const n = Math.min(1_000, COUNT - start);
        await handle.db
          .insertInto('devices')
          .values(
            Array.from({ length: n }, (_, j) => ({
              customer_id: seeded.customerId,
              key: `key-${start + j}`,
              name: `device ${start + j}`,
              location_id: null,
              policy_id: null,
              device_exception_id: null,
              advanced_config: null,
              last_contact_at: null,
              created_at: now,
              updated_at: now,
            })),
          )
          .execute();
        await handle.db
          .insertInto('policy_domains')
          .values(
            Array.from({ length: n }, (_, j) => ({
              policy_id: seeded.defaultPolicyId,
              customer_id: seeded.customerId,
              domain: `d${start + j}.example`,
              action: (start + j) % 2 === 0 ? 'block' : 'allow',
              include_subdomains: 0,
              comment: '',
              log_requests: 1,
              created_at: now,
              updated_at: now,
            })),
          )
          .execute();
      }
      const devices = await devicesPart.load(handle, silent, null);
      expect(devices.byKey.size).toBe(COUNT);
      for (const i of [0, 9_999, 10_000, 10_001, 19_999, 20_000, COUNT - 1]) {
        expect(devices.byKey.get(`key-${i}`)?.customerId).toBe(seeded.customerId);
      }

      const lists = await listsPart.load(handle, silent, null);
      const policy = lists.policy.get(seeded.defaultPolicyId);
      expect((policy?.allow.size ?? 0) + (policy?.block.size ?? 0)).toBe(COUNT);
      expect(policy?.block.lookup('d0.example')).toBe(true);
      expect(policy?.allow.lookup('d9999.example')).toBe(true);
      expect(policy?.block.lookup('d10000.example')).toBe(true);
      expect(policy?.block.lookup('d20004.example')).toBe(true);
      expect(policy?.allow.lookup('d10001.example')).toBe(true);
    } finally {
      await handle.close();
    }
  }, 60_000);

  it("reloads only the changed customer's devices and keeps the others' rows", async () => {
    const handle = await createTestDatabase(dialect);
    try {
      const seeded = await seedTenants(handle);
      const now = new Date().toISOString();
      const device = (customerId: number, key: string, extra: Record<string, unknown> = {}) => ({
        customer_id: customerId,
        key,
        name: key,
        location_id: null,
        policy_id: null,
        device_exception_id: null,
        advanced_config: null,
        last_contact_at: null,
        policy_mode: 'default',
        created_at: now,
        updated_at: now,
        ...extra,
      });
      await handle.db
        .insertInto('devices')
        .values([
          device(seeded.customerId, 'acme-1'),
          device(seeded.customerId, 'acme-2', { policy_mode: 'policy', policy_id: seeded.defaultPolicyId }),
          device(seeded.otherCustomerId, 'beta-1', { location_id: seeded.locationId, policy_mode: 'group' }),
        ])
        .execute();
      const full = await devicesPart.load(handle, silent, null);
      expect(full.byKey.size).toBe(3);
      expect(full.byKey.get('acme-2')).toMatchObject({
        customerId: seeded.customerId,
        key: 'acme-2',
        mode: 'policy',
        policyId: seeded.defaultPolicyId,
        exceptionId: null,
        locationId: null,
      });
      expect(full.byKey.get('beta-1')).toMatchObject({ mode: 'group', locationId: seeded.locationId, policyId: null });
      expect(full.byKey.get('nobody')).toBeUndefined();
      expect(full.byKey.rowOf('nobody')).toBe(-1);

      // Nothing changed: the same value.
      expect(await devicesPart.load(handle, silent, full)).toBe(full);

      // One customer's devices change: only that customer is read again.
      await handle.db.deleteFrom('devices').where('key', '=', 'acme-1').execute();
      await handle.db.insertInto('devices').values(device(seeded.customerId, 'acme-3')).execute();
      await handle.db
        .updateTable('devices')
        .set({ policy_mode: 'default', policy_id: null })
        .where('key', '=', 'acme-2')
        .execute();
      const next = await devicesPart.load(handle, silent, full);
      expect(next.reloadedCustomers).toBe(1);
      expect([...next.byKey.values()].map((d) => d.key).sort()).toEqual(['acme-2', 'acme-3', 'beta-1']);
      expect(next.byKey.get('acme-2')).toMatchObject({ mode: 'default', policyId: null });
      expect(next.byKey.get('beta-1')).toEqual(full.byKey.get('beta-1'));
      // The same rows as a full read.
      const again = await devicesPart.load(handle, silent, null);
      const sorted = (t: DeviceTable) => [...t.values()].sort((a, b) => a.deviceId - b.deviceId);
      expect(sorted(next.byKey)).toEqual(sorted(again.byKey));
    } finally {
      await handle.close();
    }
  }, 60_000);
});
