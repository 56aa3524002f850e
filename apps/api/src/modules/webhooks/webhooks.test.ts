import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhooks } from '@cordon/core';
import { testDialects } from '@cordon/db/testing';
import { SEALED_PREFIX } from '@cordon/pki';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSmtpCatcher } from '../../../../../test/support/smtp-catcher.ts';
import { call, createTenant, createTestApp, type TenantFixture, type TestApp } from '../../../test/helpers.ts';
import { insertQueryLogRows } from '../../../test/query-log.ts';

const SECOND = 1000;
const HOUR = 3_600_000;

/** A loopback receiver answering `statuses` in turn (the last one from then on); keeps every request. */
async function startReceiver(statuses: number[], extraHeaders: Record<string, string> = {}) {
  const got: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      const status = statuses.length > 1 ? (statuses.shift() as number) : (statuses[0] as number);
      res.writeHead(status, extraHeaders).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    got,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe.each(testDialects())('webhooks on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  /** The worker's clock; the API's (`t.clock`) stays put so the test's tokens stay valid. */
  let workerNow = 0;
  const deps = () => ({
    handle: t.handle,
    changes: t.changes,
    now: () => workerNow || t.clock.now,
    secrets: t.secrets,
  });
  const loopback = { outbound: { allow: ['127.0.0.0/8'] }, random: () => 0.5 };

  beforeEach(async () => {
    t = await createTestApp(dialect);
    workerNow = 0;
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
  });
  afterEach(async () => {
    await t.close();
  });

  const create = async (token: string, body: Record<string, unknown>, query = '') => {
    const res = await call(t.app, token, 'POST', `/restapi/webhooks${query}`, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: number; secret: string; user_id: number | null; msp_id: number };
  };
  const audits = (action: string) =>
    t.handle.db.selectFrom('audit_log').selectAll().where('action', '=', action).execute();

  it('creates, lists, updates, rotates and deletes endpoints; the secret is shown once and sealed at rest', async () => {
    const mine = await create(a.customerToken, { url: 'https://hooks.example.test/a', events: ['security.hit'] });
    expect(mine).toMatchObject({ user_id: a.customerId, msp_id: a.mspId, enabled: true, events: ['security.hit'] });
    expect(mine.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const stored = await t.handle.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', mine.id)
      .executeTakeFirstOrThrow();
    expect(stored.secret.startsWith(SEALED_PREFIX)).toBe(true);
    expect(t.secrets.open(stored.secret)).toBe(mine.secret);
    const [createdAudit] = await audits('webhook.create');
    expect(createdAudit?.after_json).not.toContain('whsec_');
    expect(createdAudit?.customer_id).toBe(a.customerId);

    const got = await call(t.app, a.customerToken, 'GET', `/restapi/webhooks/${mine.id}`);
    expect(got.json()).not.toHaveProperty('secret');
    // The MSP's own endpoint and the list of each owner.
    const msp = await create(a.mspToken, {
      url: 'https://hooks.example.test/m',
      events: ['admin.changed', 'feed.failed'],
    });
    expect(msp.user_id).toBeNull();
    expect(
      (await call(t.app, a.mspToken, 'GET', '/restapi/webhooks')).json().data.map((w: { id: number }) => w.id),
    ).toEqual([msp.id]);
    const customerList = await call(t.app, a.mspToken, 'GET', `/restapi/webhooks?user_id=${a.customerId}`);
    expect(customerList.json().data.map((w: { id: number }) => w.id)).toEqual([mine.id]);

    const patched = await call(t.app, a.customerToken, 'PATCH', `/restapi/webhooks/${mine.id}`, { enabled: false });
    expect(patched.json()).toMatchObject({ enabled: false });
    const rotated = await call(t.app, a.customerToken, 'POST', `/restapi/webhooks/${mine.id}/secret`);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).not.toBe(mine.secret);
    expect((await audits('webhook.rotate_secret'))[0]?.after_json ?? '').not.toContain('whsec_');
    expect((await call(t.app, a.customerToken, 'DELETE', `/restapi/webhooks/${mine.id}`)).statusCode).toBe(200);
    expect(await t.handle.db.selectFrom('webhook_endpoints').select('id').execute()).toEqual([{ id: msp.id }]);
    expect((await audits('webhook.delete')).length).toBe(1);
  });

  it('refuses bad input and changes nothing: http off loopback, no events, unknown events, credentials in the URL', async () => {
    for (const body of [
      { url: 'http://hooks.example.test/a', events: ['security.hit'] },
      { url: 'https://hooks.example.test/a', events: [] },
      { url: 'https://hooks.example.test/a', events: ['nope'] },
      { url: 'https://user:pw@hooks.example.test/a', events: ['security.hit'] },
      { url: 'ftp://hooks.example.test/a', events: ['security.hit'] },
    ]) {
      const res = await call(t.app, a.customerToken, 'POST', '/restapi/webhooks', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    // A system admin names an owner.
    expect(
      (await call(t.app, t.rootToken, 'POST', '/restapi/webhooks', { url: 'https://h.example.test', events: ['ping'] }))
        .statusCode,
    ).toBe(400);
    expect(
      (
        await call(t.app, t.rootToken, 'POST', '/restapi/webhooks', {
          url: 'https://h.example.test',
          events: ['report.sent'],
        })
      ).statusCode,
    ).toBe(404);
    expect(await t.handle.db.selectFrom('webhook_endpoints').select('id').execute()).toEqual([]);
    expect(await audits('webhook.create')).toEqual([]);
  });

  it("refuses another tenant's endpoint for every route, and a customer admin its MSP's endpoint", async () => {
    const theirs = await create(b.customerToken, { url: 'https://hooks.example.test/b', events: ['security.hit'] });
    const theirMsp = await create(b.mspToken, { url: 'https://hooks.example.test/bm', events: ['admin.changed'] });
    const ownMsp = await create(a.mspToken, { url: 'https://hooks.example.test/am', events: ['admin.changed'] });
    await webhooks.testWebhook(
      deps(),
      { kind: 'operator', adminId: null, email: null, role: 1, mspId: null, customerId: null, ip: null },
      theirs.id,
    );
    const delivery = await t.handle.db.selectFrom('webhook_deliveries').select('id').executeTakeFirstOrThrow();
    const before = JSON.stringify(
      await t.handle.db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('id', 'in', [theirs.id, theirMsp.id])
        .orderBy('id')
        .execute(),
    );
    const tries: Array<[string, string, unknown?]> = [];
    for (const id of [theirs.id, theirMsp.id]) {
      tries.push(
        ['GET', `/restapi/webhooks/${id}`],
        ['PATCH', `/restapi/webhooks/${id}`, { enabled: false }],
        ['DELETE', `/restapi/webhooks/${id}`],
        ['POST', `/restapi/webhooks/${id}/secret`],
        ['POST', `/restapi/webhooks/${id}/test`],
        ['GET', `/restapi/webhooks/${id}/deliveries`],
        ['POST', `/restapi/webhooks/${id}/deliveries/${delivery.id}/redeliver`],
      );
    }
    for (const token of [a.mspToken, a.customerToken]) {
      for (const [method, url, body] of tries) {
        const res = await call(t.app, token, method as 'GET', url, body);
        expect(res.statusCode, `${method} ${url}`).toBe(404);
      }
    }
    // A delivery of another endpoint through one's own endpoint id.
    const own = await create(a.mspToken, { url: 'https://hooks.example.test/a2', events: ['admin.changed'] });
    expect(
      (await call(t.app, a.mspToken, 'POST', `/restapi/webhooks/${own.id}/deliveries/${delivery.id}/redeliver`))
        .statusCode,
    ).toBe(404);
    expect((await call(t.app, a.customerToken, 'GET', `/restapi/webhooks/${ownMsp.id}`)).statusCode).toBe(404);
    expect((await call(t.app, a.customerToken, 'GET', `/restapi/webhooks?msp_id=${a.mspId}`)).statusCode).toBe(404);
    const after = await t.handle.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', 'in', [theirs.id, theirMsp.id])
      .orderBy('id')
      .execute();
    expect(JSON.stringify(after)).toBe(before);
    expect(await t.handle.db.selectFrom('webhook_deliveries').select('id').execute()).toEqual([{ id: delivery.id }]);
  });

  it('delivers a signed ping that verifies; retries a 500 with the backoff and a 3xx is not followed', async () => {
    const receiver = await startReceiver([500, 200]);
    try {
      const hook = await create(a.customerToken, { url: receiver.url, events: ['security.hit'] });
      const queued = await call(t.app, a.customerToken, 'POST', `/restapi/webhooks/${hook.id}/test`);
      expect(queued.statusCode).toBe(201);
      const first = await webhooks.runDeliveries(deps(), t.clock.now, loopback);
      expect(first).toMatchObject([{ ok: false, status: 500 }]);
      let log = (await call(t.app, a.customerToken, 'GET', `/restapi/webhooks/${hook.id}/deliveries`)).json().data;
      expect(log[0]).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500, type: 'ping' });
      // The first retry waits 10 s (jitter 0.5: exactly 10 s): not due 1 ms before.
      expect(Date.parse(log[0].next_attempt_at) - t.clock.now).toBe(10 * SECOND);
      expect(await webhooks.runDeliveries(deps(), t.clock.now + 10 * SECOND - 1, loopback)).toEqual([]);
      t.clock.now += 10 * SECOND;
      expect(await webhooks.runDeliveries(deps(), t.clock.now, loopback)).toMatchObject([{ ok: true, status: 200 }]);
      log = (await call(t.app, a.customerToken, 'GET', `/restapi/webhooks/${hook.id}/deliveries`)).json().data;
      expect(log[0]).toMatchObject({ status: 'delivered', attempts: 2, last_status_code: 200, next_attempt_at: null });
      expect(receiver.got).toHaveLength(2);
      const [one, two] = receiver.got;
      expect(one?.body).toBe(two?.body);
      expect(one?.headers['webhook-id']).toBe(two?.headers['webhook-id']);
      const body = JSON.parse(two?.body ?? '');
      expect(body).toMatchObject({
        version: 1,
        type: 'ping',
        id: two?.headers['webhook-id'],
        data: { webhook_id: hook.id },
      });
      const verify = (secret: string) =>
        webhooks.verifySignature(
          secret,
          {
            id: String(two?.headers['webhook-id']),
            timestamp: String(two?.headers['webhook-timestamp']),
            signature: String(two?.headers['webhook-signature']),
          },
          two?.body ?? '',
          Math.floor(t.clock.now / 1000),
        );
      expect(verify(hook.secret)).toBe(true);
      expect(verify(`whsec_${Buffer.alloc(32).toString('base64')}`)).toBe(false);
      expect(Number(two?.headers['webhook-timestamp'])).toBe(Math.floor(t.clock.now / 1000));
      // Redeliver: the same event again, due now.
      const again = await call(
        t.app,
        a.customerToken,
        'POST',
        `/restapi/webhooks/${hook.id}/deliveries/${log[0].id}/redeliver`,
      );
      expect(again.json()).toMatchObject({ status: 'pending', event_id: log[0].event_id });
      expect(await webhooks.runDeliveries(deps(), t.clock.now, loopback)).toMatchObject([{ ok: true }]);
      expect(receiver.got[2]?.headers['webhook-id']).toBe(log[0].event_id);
      expect((await audits('webhook.redeliver')).length).toBe(1);
      // Delivered deliveries leave the log after 30 days; pending ones stay.
      await call(t.app, a.customerToken, 'POST', `/restapi/webhooks/${hook.id}/test`);
      const day = 86_400_000;
      const created = Date.parse(log[0].created_at);
      expect(await webhooks.pruneDeliveries(deps(), created + 30 * day)).toBe(0);
      expect(await webhooks.pruneDeliveries(deps(), created + 30 * day + 1)).toBe(1);
      const left = await t.handle.db.selectFrom('webhook_deliveries').select('status').execute();
      expect(left).toEqual([{ status: 'pending' }]);
      expect(await webhooks.runDeliveries(deps(), t.clock.now, loopback)).toMatchObject([{ ok: true, status: 200 }]);
    } finally {
      await receiver.close();
    }
    const redirect = await startReceiver([302], { location: 'http://169.254.169.254/' });
    try {
      const hook = await create(a.customerToken, { url: redirect.url, events: ['security.hit'] });
      await call(t.app, a.customerToken, 'POST', `/restapi/webhooks/${hook.id}/test`);
      expect(await webhooks.runDeliveries(deps(), t.clock.now, loopback)).toMatchObject([{ ok: false, status: 302 }]);
      const log = (await call(t.app, a.customerToken, 'GET', `/restapi/webhooks/${hook.id}/deliveries`)).json().data;
      expect(log[0].last_error).toContain('redirects are not followed');
      expect(redirect.got).toHaveLength(1);
    } finally {
      await redirect.close();
    }
  });

  it('refuses loopback, private and link-local targets unless the operator allows them, before connecting', async () => {
    const receiver = await startReceiver([200]);
    try {
      const hook = await create(a.customerToken, { url: receiver.url, events: ['security.hit'] });
      await call(t.app, a.customerToken, 'POST', `/restapi/webhooks/${hook.id}/test`);
      expect(await webhooks.runDeliveries(deps(), t.clock.now, { outbound: { allow: [] } })).toMatchObject([
        { ok: false, status: null },
      ]);
      expect(receiver.got).toHaveLength(0);
      const log = (await call(t.app, a.customerToken, 'GET', `/restapi/webhooks/${hook.id}/deliveries`)).json().data;
      // The tenant sees one message; the cause is the operator's (docs/security.md "Outbound requests").
      expect(log[0].last_error).toBe('The server could not be reached.');
    } finally {
      await receiver.close();
    }
    for (const url of [
      'https://10.0.0.1/x',
      'https://169.254.169.254/x',
      'https://[fe80::1]/x',
      'https://[::ffff:127.0.0.1]/x',
    ]) {
      const outcome = await webhooks.postWebhook(url, '{}', {}, {}, { allow: [] });
      expect(outcome, url).toMatchObject({ ok: false, status: null });
      expect(outcome.error, url).toBe('The server could not be reached.');
      expect(outcome.detail, url).toMatch(/refused/);
    }
    // A name resolving to an internal address is refused after resolution.
    const named = await webhooks.postWebhook(
      'https://hooks.example.test/x',
      '{}',
      {},
      {},
      {
        allow: [],
        resolve: async () => [{ address: '192.168.1.5', family: 4 }],
      },
    );
    expect(named.detail).toMatch(/192\.168\.1\.5/);
    // http:// to a non-loopback address, even an allowed one, is refused.
    const plain = await webhooks.postWebhook(
      'http://hooks.example.test/x',
      '{}',
      {},
      {},
      {
        allow: ['10.0.0.0/8'],
        resolve: async () => [{ address: '10.0.0.7', family: 4 }],
      },
    );
    expect(plain.detail).toMatch(/http:\/\/ is only allowed/);
  });

  it('backs off per endpoint (10 s, 1 min, 5 min…) and disables it after 10 consecutive failures, with an audit row', async () => {
    const hook = await create(a.customerToken, { url: 'https://hooks.example.test/dead', events: ['security.hit'] });
    await call(t.app, a.customerToken, 'POST', `/restapi/webhooks/${hook.id}/test`);
    await call(t.app, a.customerToken, 'POST', `/restapi/webhooks/${hook.id}/test`);
    const smtp = await startSmtpCatcher();
    const mail = await call(t.app, t.rootToken, 'POST', '/restapi/mail', {
      server: '127.0.0.1',
      port: smtp.port,
      security: 'none',
      sender: 'Cordon',
      from_email: 'noreply@cordon.test',
      notification_period: 'daily',
      username: '',
    });
    expect(mail.statusCode, mail.body).toBe(200);
    workerNow = t.clock.now;
    const attempts: number[] = [];
    const post = async () => {
      attempts.push(workerNow);
      return { ok: false, status: 503, error: 'HTTP 503' };
    };
    const start = workerNow;
    for (let i = 0; i < 40 && attempts.length < 10; i++) {
      await webhooks.runDeliveries(deps(), workerNow, { post, random: () => 0.5 });
      const next = await t.handle.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.min<number | string>('next_attempt_at').as('m'))
        .where('status', '=', 'pending')
        .executeTakeFirst();
      if (next?.m === null || next?.m === undefined) break;
      workerNow = Number(next.m);
    }
    // One attempt per backoff step: a failure holds the endpoint's other delivery too.
    expect(attempts.map((at, i) => (i === 0 ? at - start : at - (attempts[i - 1] as number)))).toEqual([
      0,
      ...webhooks.RETRY_DELAYS_MS,
      webhooks.RETRY_DELAYS_MS.at(-1),
    ]);
    const endpoint = (await call(t.app, a.customerToken, 'GET', `/restapi/webhooks/${hook.id}`)).json();
    expect(endpoint).toMatchObject({
      enabled: false,
      consecutive_failures: 10,
      disabled_reason: '10 consecutive failed deliveries',
    });
    const log = (await call(t.app, a.customerToken, 'GET', `/restapi/webhooks/${hook.id}/deliveries`)).json().data;
    expect(log.map((d: { status: string }) => d.status)).toEqual(['failed', 'failed']);
    const [disabled] = await audits('webhook.disable');
    expect(disabled).toMatchObject({ customer_id: a.customerId, entity_id: hook.id });
    // The notice is mailed to the customer's admins too (the mail settings allow it).
    const notice = await smtp.waitFor('cust1@example.test', { timeoutMs: 5000 });
    await smtp.close();
    expect(notice.subject).toBe('Webhook endpoint disabled: https://hooks.example.test/dead');
    expect(notice.text).toContain('10 consecutive failed deliveries');
    // Disabled: no more attempts, no test, no redelivery until enabled again.
    expect(await webhooks.runDeliveries(deps(), workerNow + 365 * 86_400_000, { post })).toEqual([]);
    expect((await call(t.app, a.customerToken, 'POST', `/restapi/webhooks/${hook.id}/test`)).statusCode).toBe(409);
    const enabled = await call(t.app, a.customerToken, 'PATCH', `/restapi/webhooks/${hook.id}`, { enabled: true });
    expect(enabled.json()).toMatchObject({ enabled: true, consecutive_failures: 0, disabled_reason: null });
    // The 3-day rule: failing since more than 3 days disables at the next failure.
    expect(webhooks.disableReason(3, t.clock.now - 3 * 86_400_000, t.clock.now)).toBe('failing for 3 days');
    expect(webhooks.disableReason(9, t.clock.now - 3 * 86_400_000 + 1, t.clock.now)).toBeNull();
    expect(webhooks.retryDelayMs(1, () => 0)).toBe(8 * SECOND);
    expect(webhooks.retryDelayMs(1, () => 0.999_999)).toBe(12 * SECOND);
  });

  it('sends a security hit once per domain and client per hour, only to subscribed endpoints of the customer and its MSP', async () => {
    const row = (ts: number, qname: string, categories: string, ip = '10.1.0.66', action = 'blocked') => ({
      ts,
      customer_id: a.customerId,
      location_id: null,
      policy_id: a.policyId,
      client_ip: ip,
      qname,
      qtype: 'A',
      protocol: 'udp',
      action,
      reason: 'category',
      categories,
      rcode: 'NOERROR',
      answer_source: 'policy',
      latency_us: 50,
    });
    await webhooks.produceEvents(deps(), t.clock.now); // the watermarks start at the logs' end
    // A hit while no endpoint listens is not sent later to a new one.
    await insertQueryLogRows(t.handle, [row(t.clock.now - 9000, 'early.example', '5')]);
    await webhooks.produceEvents(deps(), t.clock.now);
    const customerHook = await create(a.customerToken, {
      url: 'https://hooks.example.test/c',
      events: ['security.hit'],
    });
    const mspHook = await create(a.mspToken, { url: 'https://hooks.example.test/m', events: ['security.hit'] });
    await create(a.mspToken, { url: 'https://hooks.example.test/other', events: ['admin.changed'] });
    await create(b.customerToken, { url: 'https://hooks.example.test/b', events: ['security.hit'] });
    await webhooks.produceEvents(deps(), t.clock.now);
    expect(await t.handle.db.selectFrom('webhook_deliveries').select('id').execute()).toEqual([]);
    const now = t.clock.now;
    await insertQueryLogRows(t.handle, [
      row(now - 5000, 'phish.example', '5'),
      row(now - 4000, 'phish.example', '5'), // same domain and client: suppressed
      row(now - 3000, 'phish.example', '5', '10.1.0.67'), // another client
      row(now - 2000, 'casino.example', '20'), // not a security category
      row(now - 1000, 'evil.example', '6', '10.1.0.66', 'allowed'), // not blocked
    ]);
    await webhooks.produceEvents(deps(), now);
    const deliveries = await t.handle.db.selectFrom('webhook_deliveries').selectAll().orderBy('id').execute();
    expect(deliveries.map((d) => [d.endpoint_id, d.type])).toEqual([
      [customerHook.id, 'security.hit'],
      [mspHook.id, 'security.hit'],
      [customerHook.id, 'security.hit'],
      [mspHook.id, 'security.hit'],
    ]);
    const payload = JSON.parse(deliveries[0]?.payload ?? '');
    expect(payload).toMatchObject({
      version: 1,
      type: 'security.hit',
      data: {
        user_id: a.customerId,
        domain: 'phish.example',
        client_ip: '10.1.0.66',
        categories: [{ id: 5, name: 'Phishing/Fraud' }],
      },
    });
    // Run again: nothing new (watermark). An hour later the same hit is sent again.
    await webhooks.produceEvents(deps(), now);
    expect((await t.handle.db.selectFrom('webhook_deliveries').select('id').execute()).length).toBe(4);
    await insertQueryLogRows(t.handle, [
      row(now + HOUR - 5001, 'phish.example', '5'),
      row(now + HOUR - 4000, 'phish.example', '5'),
    ]);
    await webhooks.produceEvents(deps(), now + HOUR);
    expect((await t.handle.db.selectFrom('webhook_deliveries').select('id').execute()).length).toBe(6);
  });

  it('sends device enrolled, admin changed, feed failed and licence threshold events from the audit trail, and report sent from the archive', async () => {
    const customerHook = await create(a.customerToken, {
      url: 'https://hooks.example.test/c',
      events: ['device.enrolled', 'admin.changed', 'report.sent'],
    });
    const mspHook = await create(a.mspToken, {
      url: 'https://hooks.example.test/m',
      events: ['admin.changed', 'feed.failed', 'licence.threshold'],
    });
    const otherMsp = await create(b.mspToken, {
      url: 'https://hooks.example.test/b',
      events: ['admin.changed', 'feed.failed'],
    });
    await webhooks.produceEvents(deps(), t.clock.now);
    const created = await call(t.app, a.customerToken, 'POST', '/restapi/admin', {
      email: 'new@a.example.test',
      full_name: 'New',
    });
    expect(created.statusCode, created.body).toBe(201);
    await t.handle.db
      .insertInto('audit_log')
      .values([
        {
          at: '2025-06-15T12:00:00.000Z',
          admin_id: null,
          admin_email: null,
          role: null,
          msp_id: a.mspId,
          customer_id: a.customerId,
          action: 'device.enrol',
          entity: 'device',
          entity_id: 77,
          before_json: null,
          after_json: null,
          client_ip: null,
        },
        {
          at: '2025-06-15T12:00:00.000Z',
          admin_id: null,
          admin_email: null,
          role: null,
          msp_id: null,
          customer_id: null,
          action: 'feed.run',
          entity: 'feed',
          entity_id: 5,
          before_json: null,
          after_json: JSON.stringify({ status: 'error', error: 'The server could not be reached.' }),
          client_ip: null,
        },
      ])
      .execute();
    await t.handle.db
      .insertInto('report_archive')
      .values({
        customer_id: a.customerId,
        scheduled_report_id: null,
        name: 'Weekly',
        type: 'top_domains',
        period_start: '2025-06-08',
        period_end: '2025-06-14',
        recipients: '["x@a.example.test"]',
        status: 'sent',
        reason: null,
        pdf: new Uint8Array(),
        created_at: '2025-06-15T12:00:00.000Z',
      })
      .execute();
    // A licence of 2 customers: the second takes the MSP past 80 % and to 100 %.
    await t.handle.db.updateTable('msps').set({ license: '2' }).where('id', '=', a.mspId).execute();
    const second = await call(t.app, t.rootToken, 'POST', '/restapi/users/', {
      accountName: 'Second',
      msp_id: a.mspId,
      timezone: 'UTC',
    });
    expect(second.statusCode, second.body).toBe(201);
    await webhooks.produceEvents(deps(), t.clock.now);
    const deliveries = await t.handle.db.selectFrom('webhook_deliveries').selectAll().orderBy('id').execute();
    const seen = deliveries.map((d) => [d.endpoint_id, d.type]);
    expect(seen).toEqual(
      expect.arrayContaining([
        [customerHook.id, 'admin.changed'],
        [mspHook.id, 'admin.changed'],
        [customerHook.id, 'device.enrolled'],
        [mspHook.id, 'feed.failed'],
        [otherMsp.id, 'feed.failed'],
        [customerHook.id, 'report.sent'],
      ]),
    );
    const licence = deliveries.filter((d) => d.type === 'licence.threshold');
    expect(licence.map((d) => [d.endpoint_id, JSON.parse(d.payload).data.threshold_percent])).toEqual([
      [mspHook.id, 80],
      [mspHook.id, 100],
    ]);
    expect(JSON.parse(licence[1]?.payload ?? '').data).toMatchObject({ customers: 2, licence: 2 });
    expect(seen).not.toContainEqual([otherMsp.id, 'admin.changed']);
    const admin = JSON.parse(deliveries.find((d) => d.type === 'admin.changed')?.payload ?? '');
    expect(admin.data).toMatchObject({ action: 'admin.create', user_id: a.customerId });
    expect(JSON.stringify(admin)).not.toContain('password');
  });
});
