import { testDialects } from '@cordon/db/testing';
import { Messages } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, snapshot, type TestApp, uploadFile } from '../../../test/helpers.ts';

/** A CSV upload of `text` as field `field` (default `csv`). */
function upload(app: FastifyInstance, token: string, url: string, text: string, field = 'csv') {
  return uploadFile(app, token, url, text, { field, filename: 'list.csv', contentType: 'text/csv' });
}

describe.each(testDialects())('domain lists on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  it("adds, reads, pages, edits and deletes a policy's entries, normalising names and refusing URLs", async () => {
    const a = await createTenant(t, 1);
    const base = `/restapi/policies/${a.policyId}/domains`;
    t.published.length = 0;
    const created = await call(t.app, a.customerToken, 'POST', `${base}/block`, {
      domain: ' Bücher.Example. ',
      comment: 'books',
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      domain: 'xn--bcher-kva.example',
      object: 'block',
      include_subdomains: true,
      log_requests: true,
      comment: 'books',
      policyid: a.policyId,
      policyname: 'Strict 1',
      user_id: a.customerId,
      msp_id: a.mspId,
    });
    expect(t.published).toEqual(['lists']);
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'domain.create')
      .executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ customer_id: a.customerId, msp_id: a.mspId, entity_id: created.json().id });

    const before = await snapshot(t.handle);
    for (const domain of ['http://x.example/', 'x.example/path', 'x.example:443', 'user@x.example']) {
      const bad = await call(t.app, a.customerToken, 'POST', `${base}/block`, { domain });
      expect(bad.statusCode, domain).toBe(400);
      expect(bad.json().fields).toEqual({ domain: Messages.domainOnly });
    }
    const dup = await call(t.app, a.customerToken, 'POST', `${base}/block`, { domain: 'BÜCHER.example' });
    expect(dup.statusCode).toBe(409);
    expect(await snapshot(t.handle)).toBe(before);
    // The same name may be in the allow list, and `all` lists both.
    await call(t.app, a.mspToken, 'POST', `${base}/allow?user_id=${a.customerId}`, {
      domain: 'xn--bcher-kva.example',
      include_subdomains: false,
    });
    for (const d of ['b.example', 'c.example', 'a.example'])
      await call(t.app, a.customerToken, 'POST', `${base}/block`, { domain: d });
    const all = await call(t.app, a.customerToken, 'GET', `${base}/all`);
    expect(all.json().total).toBe(5);
    const page = await call(t.app, a.customerToken, 'GET', `${base}/block?limit=2&offset=1&sortkey=domain`);
    expect(page.json()).toMatchObject({ total: 4, data: [{ domain: 'b.example' }, { domain: 'c.example' }] });
    const found = await call(t.app, a.customerToken, 'GET', `${base}/all?filter=BCHER`);
    expect(
      found
        .json()
        .data.map((e: { object: string }) => e.object)
        .sort(),
    ).toEqual(['allow', 'block']);

    const id = created.json().id;
    expect((await call(t.app, a.customerToken, 'GET', `${base}/allow/${id}`)).statusCode).toBe(404);
    const put = await call(t.app, a.customerToken, 'PUT', `${base}/block/${id}`, {
      domain: 'books.example',
      include_subdomains: false,
    });
    expect(put.json()).toMatchObject({ id, domain: 'books.example', include_subdomains: false, comment: 'books' });
    expect((await call(t.app, a.customerToken, 'PUT', `${base}/all/${id}`, { domain: 'a.example' })).statusCode).toBe(
      409,
    );
    expect((await call(t.app, a.customerToken, 'DELETE', `${base}/all/${id}`)).json()).toEqual({ deleted: true });
    expect((await call(t.app, a.customerToken, 'GET', `${base}/block/${id}`)).statusCode).toBe(404);
    // A user_id naming another customer than the policy's is "not found".
    const other = await createTenant(t, 2);
    expect((await call(t.app, t.rootToken, 'GET', `${base}/all?user_id=${other.customerId}`)).statusCode).toBe(404);
  });

  it('imports a CSV all or nothing, naming the first bad line, and exports it named DD-MM-YYYY', async () => {
    const a = await createTenant(t, 1);
    const base = `/restapi/policies/${a.policyId}/domains`;
    await call(t.app, a.customerToken, 'POST', `${base}/block`, { domain: 'old.example' });
    const before = await snapshot(t.handle);
    const bad = await upload(
      t.app,
      a.customerToken,
      `${base}/import/block`,
      'ok.example\nfine.example\nhttp://bad.example/x\nworse/\n',
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toEqual({ csv: `Line 3: ${Messages.domainOnly}` });
    expect(await snapshot(t.handle)).toBe(before);
    const big = await upload(t.app, a.customerToken, `${base}/import/block`, 'a.example\n'.repeat(110_000));
    expect(big.statusCode).toBe(400);
    expect(big.json().fields).toEqual({ csv: Messages.fileTooLarge });
    const none = await call(t.app, a.customerToken, 'POST', `${base}/import/block`, {});
    expect(none.statusCode).toBe(400);
    expect(await snapshot(t.handle)).toBe(before);

    t.published.length = 0;
    const ok = await upload(
      t.app,
      a.customerToken,
      `${base}/import/block`,
      '# staff list\nnew.example\nold.example\n\nsub.new.example,false,"no, not kids",0\nNEW.example\n',
    );
    expect(ok.json()).toEqual({ imported: 2, skipped: 1, removed: 0 });
    expect(t.published).toEqual(['lists']);
    const listed = (await call(t.app, a.customerToken, 'GET', `${base}/block?sortkey=domain`)).json();
    expect(listed.data.map((e: { domain: string }) => e.domain)).toEqual([
      'new.example',
      'old.example',
      'sub.new.example',
    ]);
    expect(listed.data[2]).toMatchObject({ include_subdomains: false, comment: 'no, not kids', log_requests: false });

    t.clock.now = Date.UTC(2025, 5, 15, 23, 30, 0);
    const csv = await call(t.app, a.customerToken, 'GET', `${base}/block/export`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toBe('attachment; filename="domains-block-15-06-2025.csv"');
    expect(csv.body.split('\r\n')).toEqual([
      'domain,object,include_subdomains,comment,log_requests',
      'new.example,block,true,,true',
      'old.example,block,true,,true',
      'sub.new.example,block,false,"no, not kids",false',
      '',
    ]);
    // The export imports back; overwrite replaces the list.
    const round = await upload(
      t.app,
      a.customerToken,
      `${base}/import/block?overwrite=true`,
      csv.body.replace('old.example,', 'other.example,'),
    );
    expect(round.json()).toEqual({ imported: 3, skipped: 0, removed: 3 });
    const after = (await call(t.app, a.customerToken, 'GET', `${base}/block?sortkey=domain`)).json();
    expect(after.data.map((e: { domain: string }) => e.domain)).toEqual([
      'new.example',
      'other.example',
      'sub.new.example',
    ]);
    // An export's line for the other list is refused when imported into this one.
    const wrong = await upload(t.app, a.customerToken, `${base}/import/allow`, csv.body);
    expect(wrong.json().fields.csv).toMatch(/^Line 2: /);
  });

  it('keeps global lists per MSP and for the system, each admin on its own', async () => {
    const a = await createTenant(t, 1);
    const b = await createTenant(t, 2);
    const sys = await call(t.app, t.rootToken, 'POST', '/restapi/global/domains/block', { domain: 'malware.example' });
    expect(sys.json()).toMatchObject({ msp_id: null, policyid: null, object: 'block' });
    const own = await call(t.app, a.mspToken, 'POST', '/restapi/global/domains/block', { domain: 'msp.example' });
    expect(own.json()).toMatchObject({ msp_id: a.mspId });
    const viaRoot = await call(t.app, t.rootToken, 'POST', `/restapi/global/domains/allow?msp_id=${b.mspId}`, {
      domain: 'b.example',
    });
    expect(viaRoot.json()).toMatchObject({ msp_id: b.mspId, object: 'allow' });
    // Each list holds its own; an MSP admin never sees the system's or another MSP's.
    expect((await call(t.app, t.rootToken, 'GET', '/restapi/global/domains/all')).json().data).toHaveLength(1);
    expect((await call(t.app, a.mspToken, 'GET', '/restapi/global/domains/all')).json().data).toMatchObject([
      { domain: 'msp.example' },
    ]);
    expect((await call(t.app, a.mspToken, 'GET', `/restapi/global/domains/all?msp_id=${b.mspId}`)).statusCode).toBe(
      404,
    );
    expect((await call(t.app, a.mspToken, 'GET', `/restapi/global/domains/all/${sys.json().id}`)).statusCode).toBe(404);
    expect((await call(t.app, a.customerToken, 'GET', '/restapi/global/domains/all')).statusCode).toBe(403);
    // Updates are POSTs (spec-notes §7).
    const upd = await call(t.app, a.mspToken, 'POST', `/restapi/global/domains/block/${own.json().id}`, {
      comment: 'all schools',
    });
    expect(upd.json()).toMatchObject({ comment: 'all schools', domain: 'msp.example' });
    const imp = await upload(
      t.app,
      t.rootToken,
      `/restapi/global/domains/import/block?msp_id=${a.mspId}`,
      'x.example\n',
    );
    expect(imp.json()).toEqual({ imported: 1, skipped: 0, removed: 0 });
    const csv = await call(t.app, a.mspToken, 'GET', '/restapi/global/domains/block/export');
    expect(csv.body).toContain('x.example,block');
    expect((await call(t.app, t.rootToken, 'DELETE', `/restapi/global/domains/all/${sys.json().id}`)).statusCode).toBe(
      200,
    );
  });
});
