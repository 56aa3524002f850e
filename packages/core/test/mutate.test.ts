import { type Caller, type CoreDeps, mutate, OPERATOR } from '@cordon/core';
import type { ChangeFeed, ChangeTopic, DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { ApiError, Role } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * The one mutation path (docs/architecture.md "One mutation path"): work and audit row in one
 * transaction, unique violations as conflicts, topics only after commit.
 */
describe.each(testDialects())('mutate() on %s', (dialect) => {
  let handle: DatabaseHandle;
  /** What `publish` saw: the topic, and whether the MSP row was visible outside the transaction then. */
  let seen: Array<{ topic: ChangeTopic; committed: boolean }>;
  let deps: CoreDeps;
  const caller: Caller = {
    kind: 'admin',
    adminId: null,
    email: 'ops@example.test',
    role: Role.System,
    mspId: null,
    customerId: null,
    ip: '203.0.113.9',
  };

  beforeEach(async () => {
    handle = await createTestDatabase(dialect);
    seen = [];
    // A feed that looks at the database when told: a topic published before commit would not see the row.
    const changes: ChangeFeed = {
      async publish(topic) {
        const row = await handle.db.selectFrom('msps').select('id').where('name', '=', 'Acme').executeTakeFirst();
        seen.push({ topic, committed: row !== undefined });
      },
      subscribe: () => () => {},
      start: async () => {},
      close: async () => {},
    };
    deps = { handle, changes, now: () => Date.UTC(2025, 0, 2, 3, 4, 5) };
  });
  afterEach(async () => {
    await handle.close();
  });

  const insertAcme = (name = 'Acme') =>
    mutate(deps, caller, { topics: ['tenants'], audit: { action: 'msp.create', entity: 'msp' } }, async (trx, note) => {
      const row = await trx
        .insertInto('msps')
        .values({ name, company_name: '', license: '', timezone: 'UTC', created_at: 'x', updated_at: 'x' })
        .returning('id')
        .executeTakeFirstOrThrow();
      note.entityId = row.id;
      note.mspId = row.id;
      note.after = { id: row.id, name };
      return row.id;
    });
  const audits = () => handle.db.selectFrom('audit_log').selectAll().orderBy('id').execute();

  it('writes the change and its audit row (who, tenant, action, entity, after, time, IP), then publishes', async () => {
    const id = await insertAcme();
    const [row, ...rest] = await audits();
    expect(rest).toEqual([]);
    expect(row).toMatchObject({
      at: '2025-01-02T03:04:05.000Z',
      admin_id: null,
      admin_email: 'ops@example.test',
      role: Role.System,
      msp_id: id,
      customer_id: null,
      action: 'msp.create',
      entity: 'msp',
      entity_id: id,
      before_json: null,
      client_ip: '203.0.113.9',
    });
    expect(JSON.parse(row?.after_json ?? 'null')).toEqual({ id, name: 'Acme' });
    expect(seen).toEqual([{ topic: 'tenants', committed: true }]);
  });

  it('leaves no change, no audit row and no topic when the work fails', async () => {
    const failing = mutate(
      deps,
      caller,
      { topics: ['tenants'], audit: { action: 'msp.create', entity: 'msp' } },
      async (trx) => {
        await trx
          .insertInto('msps')
          .values({ name: 'Acme', company_name: '', license: '', timezone: 'UTC', created_at: 'x', updated_at: 'x' })
          .execute();
        throw new ApiError('ERR_VALIDATION', 'no');
      },
    );
    await expect(failing).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
    expect(await handle.db.selectFrom('msps').selectAll().execute()).toEqual([]);
    expect(await audits()).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('turns a unique violation into the conflict error, writing nothing', async () => {
    await insertAcme();
    await expect(insertAcme()).rejects.toMatchObject({ code: 'ERR_CONFLICT' });
    const custom = mutate(
      deps,
      caller,
      { topics: [], audit: { action: 'msp.create', entity: 'msp' }, conflict: () => new Error('taken') },
      (trx) =>
        trx
          .insertInto('msps')
          .values({ name: 'Acme', company_name: '', license: '', timezone: 'UTC', created_at: 'x', updated_at: 'x' })
          .execute(),
    );
    await expect(custom).rejects.toThrow('taken');
    expect(await audits()).toHaveLength(1);
    expect(seen).toHaveLength(1);
  });

  it('records before and after of an update, and the operator as a caller without admin or IP', async () => {
    const id = await insertAcme();
    await mutate(deps, OPERATOR, { topics: [], audit: { action: 'msp.update', entity: 'msp' } }, async (trx, note) => {
      note.entityId = id;
      note.before = await trx.selectFrom('msps').select(['id', 'name']).where('id', '=', id).executeTakeFirst();
      await trx.updateTable('msps').set({ name: 'Acme 2' }).where('id', '=', id).execute();
      note.after = await trx.selectFrom('msps').select(['id', 'name']).where('id', '=', id).executeTakeFirst();
    });
    const row = (await audits())[1];
    expect(row).toMatchObject({ action: 'msp.update', role: Role.System, admin_email: null, client_ip: null });
    expect(JSON.parse(row?.before_json ?? 'null')).toEqual({ id, name: 'Acme' });
    expect(JSON.parse(row?.after_json ?? 'null')).toEqual({ id, name: 'Acme 2' });
  });
});
