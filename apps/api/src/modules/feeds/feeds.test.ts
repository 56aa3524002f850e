import { testDialects } from '@cordon/db/testing';
import { feedUrlMessage, Messages } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, snapshot, type TestApp, uploadFile } from '../../../test/helpers.ts';

const URL = '/restapi/feeds';

describe.each(testDialects())('category feeds API on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates, lists, pages, edits and deletes feed sources; uploads a file as the feed', async () => {
    const created = await call(t.app, t.rootToken, 'POST', URL, {
      name: '  StevenBlack hosts ',
      format: 'hosts',
      category_id: 20,
      url: 'https://feeds.example/hosts',
      interval_hours: 12,
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      name: 'StevenBlack hosts',
      format: 'hosts',
      category_id: 20,
      category_name: 'Gambling',
      url: 'https://feeds.example/hosts',
      interval_hours: 12,
      enabled: true,
      last_status: null,
    });
    const id = created.json().id as number;
    for (const name of ['Beta list', 'Alpha list']) {
      const r = await call(t.app, t.rootToken, 'POST', URL, { name, format: 'adblock', category_id: 6, url: '' });
      expect(r.statusCode, r.body).toBe(201);
      expect(r.json()).toMatchObject({ url: null, interval_hours: 0 });
    }
    const page = await call(t.app, t.rootToken, 'GET', `${URL}?limit=2&offset=0&sortkey=name&sortdir=asc`);
    expect(page.json().total).toBe(3);
    expect(page.json().data.map((f: { name: string }) => f.name)).toEqual(['Alpha list', 'Beta list']);
    const found = await call(t.app, t.rootToken, 'GET', `${URL}?filter=feeds.example`);
    expect(found.json().data.map((f: { id: number }) => f.id)).toEqual([id]);

    const patched = await call(t.app, t.rootToken, 'PATCH', `${URL}/${id}`, { enabled: false, category_id: 6 });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ enabled: false, category_id: 6 });

    t.published.length = 0;
    const uploaded = await uploadFile(
      t.app,
      t.rootToken,
      `${URL}/${id}/upload`,
      '0.0.0.0 ads.example\n0.0.0.0 bad_name!\n',
      {
        field: 'file',
        filename: 'hosts.txt',
        contentType: 'text/plain',
      },
    );
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    expect(uploaded.json()).toMatchObject({ rows: 1, invalid_entries: 1, feed: { last_status: 'ok', last_rows: 1 } });
    expect(t.published).toEqual(['categories']);
    const rows = await t.handle.db
      .selectFrom('category_domains')
      .select(['domain', 'category_id'])
      .where('source', '=', `feed:${id}`)
      .execute();
    expect(rows).toEqual([{ domain: 'ads.example', category_id: 6 }]);

    expect((await call(t.app, t.rootToken, 'DELETE', `${URL}/${id}?confirm_name=StevenBlack%20hosts`)).statusCode).toBe(
      200,
    );
    expect((await call(t.app, t.rootToken, 'GET', `${URL}/${id}`)).statusCode).toBe(404);
    expect(
      await t.handle.db.selectFrom('category_domains').select('domain').where('source', '=', `feed:${id}`).execute(),
    ).toEqual([]);
  });

  it('records a run whose download fails and answers its reason; refuses bad input changing nothing', async () => {
    // A loopback URL: the outbound guard refuses it before connecting, with the one generic message.
    const feed = await call(t.app, t.rootToken, 'POST', URL, {
      name: 'Unreachable',
      format: 'domains',
      category_id: 20,
      url: 'https://127.0.0.1:9/list.txt',
    });
    const id = feed.json().id as number;
    const run = await call(t.app, t.rootToken, 'POST', `${URL}/${id}/run`);
    expect(run.statusCode).toBe(422);
    expect(run.json().error).toBe('The server could not be reached.');
    expect((await call(t.app, t.rootToken, 'GET', `${URL}/${id}`)).json()).toMatchObject({
      last_status: 'error',
      last_error: run.json().error,
    });

    const before = await snapshot(t.handle);
    const refused = async (body: Record<string, unknown>, field: string, message?: string) => {
      const r = await call(t.app, t.rootToken, 'POST', URL, body);
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      expect(Object.keys(r.json().fields ?? {})).toContain(field);
      if (message) expect(r.json().fields[field]).toBe(message);
    };
    const ok = { name: 'X', format: 'hosts', category_id: 20 };
    await refused({ ...ok, url: 'http://feeds.example/hosts' }, 'url', feedUrlMessage);
    await refused({ ...ok, url: 'ftp://feeds.example/hosts' }, 'url', feedUrlMessage);
    await refused({ ...ok, format: 'csv' }, 'format');
    await refused({ ...ok, category_id: 999 }, 'category_id', 'Unknown category.');
    await refused({ ...ok, name: '' }, 'name', Messages.required);
    await refused({ ...ok, interval_hours: 721 }, 'interval_hours');
    const dup = await call(t.app, t.rootToken, 'POST', URL, { ...ok, name: 'unreachable' });
    expect(dup.statusCode).toBe(409);
    const noFile = await uploadFile(t.app, t.rootToken, `${URL}/${id}/upload`, 'x.example', {
      field: 'csv',
      filename: 'x.txt',
      contentType: 'text/plain',
    });
    expect(noFile.statusCode).toBe(400);
    expect((await call(t.app, t.rootToken, 'POST', `${URL}/999999/run`)).statusCode).toBe(404);
    expect(await snapshot(t.handle)).toBe(before);

    // An MSP admin is refused by role, whatever the id.
    const a = await createTenant(t, 1);
    expect((await call(t.app, a.mspToken, 'GET', URL)).statusCode).toBe(403);
    expect((await call(t.app, a.mspToken, 'POST', `${URL}/${id}/run`)).statusCode).toBe(403);
  });
});
