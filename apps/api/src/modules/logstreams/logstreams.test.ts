/**
 * Per-MSP query-log stream destinations (docs/operations.md "Query-log streaming" "Per-MSP
 * destinations"): CRUD with the Authorization value sealed and shown only as a hint, validation,
 * the outbound guard on IP literals, and another MSP's destinations refused on every route.
 */
import { logstreams } from '@cordon/core';
import { testDialects } from '@cordon/db/testing';
import { SEALED_PREFIX } from '@cordon/pki';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TenantFixture, type TestApp } from '../../../test/helpers.ts';

const TOKEN = 'Splunk 0123456789abcdef-f00d';

describe.each(testDialects())('log streams on %s', (dialect) => {
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

  const create = async (token: string, body: Record<string, unknown>, query = '') => {
    const res = await call(t.app, token, 'POST', `/restapi/log-streams${query}`, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: number; msp_id: number; authorization_hint: string | null };
  };
  const rows = () => t.handle.db.selectFrom('msp_log_streams').selectAll().orderBy('id').execute();
  const audits = (action: string) =>
    t.handle.db.selectFrom('audit_log').selectAll().where('action', '=', action).execute();

  it('creates, lists, updates and deletes destinations; the Authorization value is sealed and only hinted', async () => {
    const siem = await create(a.mspToken, {
      name: 'Splunk',
      format: 'ndjson',
      address: 'https://siem.example.test/services/collector/raw',
      authorization: TOKEN,
    });
    expect(siem).toMatchObject({
      msp_id: a.mspId,
      name: 'Splunk',
      format: 'ndjson',
      enabled: true,
      ca_pem: null,
      authorization_hint: 'Splunk …f00d',
      last_error: null,
    });
    expect(JSON.stringify(siem)).not.toContain('0123456789');
    const [stored] = await rows();
    expect(stored?.authorization?.startsWith(SEALED_PREFIX)).toBe(true);
    expect(t.secrets.open(stored?.authorization as string)).toBe(TOKEN);
    const [created] = await audits('log_stream.create');
    expect(created?.msp_id).toBe(a.mspId);
    expect(created?.after_json).not.toContain('0123456789');
    expect(created?.after_json).toContain('"authorization_set":true');

    // The system admin adds one for MSP A by its id; each list holds its own MSP's only.
    const syslog = await create(
      t.rootToken,
      { name: 'rsyslog', format: 'syslog', address: 'tls://logs.example.test:6514' },
      `?msp_id=${a.mspId}`,
    );
    expect(syslog.msp_id).toBe(a.mspId);
    const other = await create(b.mspToken, { name: 'B', format: 'syslog', address: 'tcp://[2001:db8::1]:514' });
    const listA = await call(t.app, a.mspToken, 'GET', '/restapi/log-streams');
    expect(listA.json().data.map((s: { id: number }) => s.id)).toEqual([siem.id, syslog.id]);
    const listB = await call(t.app, t.rootToken, 'GET', `/restapi/log-streams?msp_id=${b.mspId}`);
    expect(listB.json()).toMatchObject({ total: 1, data: [{ id: other.id }] });

    // PATCH: disable, change the address; a null Authorization removes it; the hint follows.
    const patched = await call(t.app, a.mspToken, 'PATCH', `/restapi/log-streams/${siem.id}`, {
      enabled: false,
      address: 'https://siem2.example.test/raw',
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ enabled: false, address: 'https://siem2.example.test/raw' });
    expect(patched.json().authorization_hint).toBe('Splunk …f00d');
    const cleared = await call(t.app, a.mspToken, 'PATCH', `/restapi/log-streams/${siem.id}`, {
      authorization: null,
    });
    expect(cleared.json().authorization_hint).toBeNull();
    expect((await rows()).find((r) => r.id === siem.id)?.authorization).toBeNull();
    expect((await audits('log_stream.update')).length).toBe(2);
    // A short credential shows its scheme only.
    const short = await call(t.app, a.mspToken, 'PATCH', `/restapi/log-streams/${siem.id}`, {
      authorization: 'Bearer abc',
    });
    expect(short.json().authorization_hint).toBe('Bearer …');

    expect((await call(t.app, a.mspToken, 'DELETE', `/restapi/log-streams/${siem.id}`)).statusCode).toBe(200);
    expect((await rows()).map((r) => r.id)).toEqual([syslog.id, other.id]);
    expect((await audits('log_stream.delete')).map((r) => Number(r.entity_id))).toEqual([siem.id]);
  });

  it('refuses bad input and changes nothing', async () => {
    const bad: Array<Record<string, unknown>> = [
      { name: '', format: 'ndjson', address: 'https://siem.example.test/' },
      { name: 'x', format: 'dnstap', address: 'unix:/tmp/x.sock' },
      { name: 'x', format: 'ndjson', address: 'http://siem.example.test/' },
      { name: 'x', format: 'ndjson', address: 'https://user:pw@siem.example.test/' },
      { name: 'x', format: 'ndjson', address: 'ftp://siem.example.test/' },
      { name: 'x', format: 'syslog', address: 'udp://logs.example.test:514' },
      { name: 'x', format: 'syslog', address: 'tcp://logs.example.test:70000' },
      { name: 'x', format: 'syslog', address: 'https://logs.example.test/' },
      { name: 'x', format: 'syslog', address: 'tcp://logs.example.test:514', authorization: 'Bearer x' },
      { name: 'x', format: 'ndjson', address: 'https://siem.example.test/', authorization: 'a\r\nX-Evil: 1' },
      { name: 'x', format: 'ndjson', address: 'https://siem.example.test/', ca_pem: 'not a certificate' },
      // The outbound guard: loopback, private, link-local (the metadata address) and this host.
      { name: 'x', format: 'syslog', address: 'tcp://127.0.0.1:514' },
      { name: 'x', format: 'syslog', address: 'tcp://10.0.0.5:514' },
      { name: 'x', format: 'ndjson', address: 'https://169.254.169.254/latest' },
      { name: 'x', format: 'ndjson', address: 'https://[fd00::1]/' },
      { name: 'x', format: 'ndjson', address: 'http://127.0.0.1:8088/' },
      { name: 'x', format: 'syslog', address: 'tcp://localhost:514' },
    ];
    for (const body of bad) {
      const res = await call(t.app, a.mspToken, 'POST', '/restapi/log-streams', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().fields, JSON.stringify(body)).toBeDefined();
    }
    // The system admin must name the MSP; a missing MSP is 404.
    const body = { name: 'x', format: 'ndjson', address: 'https://siem.example.test/' };
    expect((await call(t.app, t.rootToken, 'POST', '/restapi/log-streams', body)).statusCode).toBe(404);
    expect((await call(t.app, t.rootToken, 'POST', '/restapi/log-streams?msp_id=999999', body)).statusCode).toBe(404);
    // A PATCH whose address does not fit the format changes nothing.
    const ok = await create(a.mspToken, body);
    const patch = await call(t.app, a.mspToken, 'PATCH', `/restapi/log-streams/${ok.id}`, { format: 'syslog' });
    expect(patch.statusCode).toBe(400);
    expect((await call(t.app, a.mspToken, 'PATCH', `/restapi/log-streams/${ok.id}`, {})).statusCode).toBe(400);
    expect((await rows()).map((r) => [r.id, r.format])).toEqual([[ok.id, 'ndjson']]);
    expect((await audits('log_stream.update')).length).toBe(0);
    expect((await audits('log_stream.create')).length).toBe(1);
  });

  it('accepts a loopback address only when the operator allows it (the outbound guard)', async () => {
    const operator = { kind: 'operator', adminId: null, email: null, role: 1, mspId: null, customerId: null, ip: null };
    const deps = { handle: t.handle, changes: t.changes, now: () => t.clock.now, secrets: t.secrets };
    const body = {
      name: 'local',
      format: 'ndjson' as const,
      address: 'http://127.0.0.1:8088/raw',
      ca_pem: null,
      authorization: null,
      enabled: true,
    };
    await expect(
      logstreams.createLogStream(deps, operator as never, { msp_id: a.mspId }, body, { outbound: { allow: [] } }),
    ).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
    const created = await logstreams.createLogStream(deps, operator as never, { msp_id: a.mspId }, body, {
      outbound: { allow: ['127.0.0.0/8'] },
    });
    expect(created).toMatchObject({ msp_id: a.mspId, address: 'http://127.0.0.1:8088/raw' });
  });

  it("refuses another MSP's destination on every route, and customer admins altogether", async () => {
    const theirs = await create(b.mspToken, {
      name: 'B SIEM',
      format: 'ndjson',
      address: 'https://siem-b.example.test/',
      authorization: TOKEN,
    });
    const own = await create(a.mspToken, { name: 'A', format: 'syslog', address: 'tcp://logs-a.example.test:514' });
    const before = JSON.stringify(await rows());
    for (const [method, url, body] of [
      ['GET', `/restapi/log-streams/${theirs.id}`],
      ['PATCH', `/restapi/log-streams/${theirs.id}`, { enabled: false }],
      ['DELETE', `/restapi/log-streams/${theirs.id}`],
      ['GET', `/restapi/log-streams?msp_id=${b.mspId}`],
      ['POST', `/restapi/log-streams?msp_id=${b.mspId}`, { name: 'x', format: 'syslog', address: 'tcp://x.test:514' }],
    ] as Array<[string, string, unknown?]>) {
      const res = await call(t.app, a.mspToken, method as 'GET', url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    // A customer admin has no access to its own MSP's destinations either.
    for (const [method, url] of [
      ['GET', '/restapi/log-streams'],
      ['GET', `/restapi/log-streams/${own.id}`],
      ['DELETE', `/restapi/log-streams/${own.id}`],
    ] as Array<[string, string]>) {
      expect((await call(t.app, a.customerToken, method as 'GET', url)).statusCode, `${method} ${url}`).toBe(403);
    }
    expect(JSON.stringify(await rows())).toBe(before);
    expect(await audits('log_stream.update')).toEqual([]);
    expect(await audits('log_stream.delete')).toEqual([]);
  });
});
