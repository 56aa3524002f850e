import { testDialects } from '@cordon/db/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TestApp, uploadFile } from '../../../test/helpers.ts';

/**
 * The operator's list-size limit (`cordon serve --max-list-entries`; docs/operations.md "List
 * sizes"): adds and imports that would pass it answer 422 `ERR_LIST_FULL` naming the limit, and
 * write nothing.
 */
describe.each(testDialects())('the domain-list size limit on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect, { listLimits: { maxEntries: 2 } });
  });
  afterEach(async () => {
    await t.close();
  });

  it('refuses an add and an import beyond the limit with 422 ERR_LIST_FULL, per list', async () => {
    const a = await createTenant(t, 1);
    const base = `/restapi/policies/${a.policyId}/domains`;
    for (const domain of ['one.example', 'two.example']) {
      expect((await call(t.app, a.customerToken, 'POST', `${base}/block`, { domain })).statusCode).toBe(201);
    }
    const full = await call(t.app, a.customerToken, 'POST', `${base}/block`, { domain: 'three.example' });
    expect(full.statusCode).toBe(422);
    const text = 'This list is full: it may hold at most 2 entries.';
    expect(full.json()).toEqual({ error: text, code: 'ERR_LIST_FULL', fields: { domain: text } });
    // The allow list is another list.
    expect((await call(t.app, a.customerToken, 'POST', `${base}/allow`, { domain: 'three.example' })).statusCode).toBe(
      201,
    );
    // An import past the limit: refused whole.
    const imported = await uploadFile(t.app, a.customerToken, `${base}/import/allow`, 'four.example\nfive.example', {
      field: 'csv',
      filename: 'list.csv',
      contentType: 'text/csv',
    });
    expect(imported.statusCode).toBe(422);
    expect(imported.json()).toMatchObject({ code: 'ERR_LIST_FULL', fields: { csv: text } });
    const allow = await call(t.app, a.customerToken, 'GET', `${base}/allow`);
    expect((allow.json() as { data: { domain: string }[] }).data.map((e) => e.domain)).toEqual(['three.example']);
    // A listed domain still answers 409, before the limit is in question.
    const again = await call(t.app, a.customerToken, 'POST', `${base}/allow`, { domain: 'three.example' });
    expect(again.statusCode).toBe(409);
  });
});
