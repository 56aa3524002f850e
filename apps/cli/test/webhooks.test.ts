/**
 * Webhooks end to end (issue 26; docs/api.md "Webhooks"): a real `cordon serve` with the loopback
 * range allowed for outbound requests (`CORDON_OUTBOUND_ALLOW`), a customer whose location claims
 * 127.0.0.1 with a policy blocking Phishing/Fraud, a phishing domain uploaded as a category feed, and
 * a loopback receiver answering 500 then 200. A `dig` for the domain reaches the receiver as a
 * signed `security.hit` event, retried after the 500 by the worker's backoff; the delivery log shows
 * 2 attempts, the last 200.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webhooks } from '@cordon/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiSession, apiLogin } from '../../../e2e/support/api.ts';
import { CLI, type CordonProcess, startCordon } from '../../../e2e/support/cordon.ts';
import { dig } from '../../resolver/test/helpers/dig.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';

const ADMIN = { email: 'root@webhooks.test', password: 'Adm1n-Secret-Pass' };
const PHISH = 'login-bank.phish.example';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

describe('webhooks with cordon serve', () => {
  let dataDir: string;
  let upstream: FakeUpstream;
  let cordon: CordonProcess;
  let receiver: http.Server;
  const received: Received[] = [];
  let httpPort: number;
  let dnsPort: number;
  let root: ApiSession;

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString(), at: Date.now() });
        res.writeHead(received.length === 1 ? 500 : 200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    upstream = await startFakeUpstream();
    dataDir = mkdtempSync(join(tmpdir(), 'cordon-webhooks-'));
    cordon = await startCordon(
      {
        CORDON_DATA_DIR: dataDir,
        CORDON_HTTP_ADDR: '127.0.0.1:0',
        CORDON_DNS_ADDR: '127.0.0.1:0',
        CORDON_BLOCKPAGE_ADDR: '127.0.0.1:0',
        CORDON_BLOCKPAGE_HTTPS_ADDR: '127.0.0.1:0',
        CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
        CORDON_ADMIN_EMAIL: ADMIN.email,
        CORDON_ADMIN_PASSWORD: ADMIN.password,
        CORDON_CLAIM_ALLOW_SPECIAL: 'true',
        CORDON_OUTBOUND_ALLOW: '127.0.0.0/8',
        // Due deliveries are looked for every 500 ms instead of 15 s: the retry goes out 10 s ± 20 % later.
        CORDON_WORKER_TICK_MS: '500',
      },
      90_000,
      CLI,
    );
    const line = cordon.output.find((l) => l.startsWith('cordon serving:')) ?? '';
    httpPort = Number(/ http=127\.0\.0\.1:(\d+)/.exec(line)?.[1]);
    dnsPort = Number(/ dns=127\.0\.0\.1:(\d+)/.exec(line)?.[1]);
    root = await apiLogin(httpPort, ADMIN.email, ADMIN.password);
  }, 120_000);
  afterAll(async () => {
    await cordon?.stop();
    await upstream?.close();
    await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  const ok = async (p: Promise<{ status: number; body: unknown }>) => {
    const res = await p;
    if (res.status >= 300) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown> & { id: number };
  };

  it('delivers a signed security hit for a phishing query, retried after a 500, in the delivery log', async () => {
    // A phishing domain in the category database (category 5, Phishing/Fraud), as an uploaded feed.
    const feed = await ok(root.call('POST', '/feeds', { name: 'Phish test', format: 'domains', category_id: 5 }));
    const form = new FormData();
    form.append('file', new Blob([`${PHISH}\n`]), 'phish.txt');
    const uploaded = await fetch(`http://127.0.0.1:${httpPort}/restapi/feeds/${feed.id}/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${root.token}` },
      body: form,
    });
    expect(uploaded.status, await uploaded.clone().text()).toBe(200);
    const msp = await ok(root.call('POST', '/msp', { name: 'Hook MSP', company_name: 'Hook Ltd' }));
    const customer = await ok(root.call('POST', '/users/', { accountName: 'Hooked', msp_id: msp.id, timezone: 'UTC' }));
    const policy = await ok(
      root.call('POST', '/policies', { user_id: customer.id, name: 'Hooked policy', filtering_level: 'low' }),
    );
    await ok(
      root.call('POST', `/users/${customer.id}/locations/staticip`, {
        name: 'Loopback office',
        policy_id: policy.id,
        addresses: ['127.0.0.1/32'],
      }),
    );
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cordon`;
    const hook = (await ok(
      root.call('POST', `/webhooks?user_id=${customer.id}`, { url, events: ['security.hit'] }),
    )) as { id: number; secret: string };
    expect(hook.secret).toMatch(/^whsec_/);

    // The query is blocked once the resolver has the new category and location (the change feed).
    const deadline = Date.now() + 20_000;
    let blocked = false;
    while (!blocked && Date.now() < deadline) {
      const answer = await dig(dnsPort, '-b', '127.0.0.1', PHISH, 'A');
      blocked = answer.answers[0]?.data !== undefined && answer.answers[0]?.data !== '192.0.2.10';
      if (!blocked) await new Promise((r) => setTimeout(r, 200));
    }
    expect(blocked, 'the phishing domain is blocked').toBe(true);

    // The worker produces the event on its next tick, the receiver answers 500, the retry 10 s later gets 200.
    const until = Date.now() + 30_000;
    while (received.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
    expect(received).toHaveLength(2);
    const [first, second] = received as [Received, Received];
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    // The first backoff step, 10 s ± 20 %, plus at most a tick.
    expect(second.at - first.at).toBeGreaterThanOrEqual(8000);
    expect(second.at - first.at).toBeLessThan(13_500);
    for (const r of received) {
      const headers = {
        id: String(r.headers['webhook-id']),
        timestamp: String(r.headers['webhook-timestamp']),
        signature: String(r.headers['webhook-signature']),
      };
      expect(headers.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(webhooks.verifySignature(hook.secret, headers, r.body, Math.floor(r.at / 1000))).toBe(true);
      expect(webhooks.verifySignature(hook.secret, headers, `${r.body} `, Math.floor(r.at / 1000))).toBe(false);
    }
    const event = JSON.parse(second.body);
    expect(event).toMatchObject({
      version: 1,
      type: 'security.hit',
      id: second.headers['webhook-id'],
      data: {
        user_id: customer.id,
        domain: PHISH,
        client_ip: '127.0.0.1',
        categories: [{ id: 5, name: 'Phishing/Fraud' }],
      },
    });

    // The delivery log: one delivery, 2 attempts, the last answered 200.
    let log: Array<Record<string, unknown>> = [];
    const logDeadline = Date.now() + 5000;
    while (Date.now() < logDeadline) {
      log = ((await ok(root.call('GET', `/webhooks/${hook.id}/deliveries`))) as unknown as { data: typeof log }).data;
      if (log[0]?.status === 'delivered') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      type: 'security.hit',
      status: 'delivered',
      attempts: 2,
      last_status_code: 200,
      event_id: second.headers['webhook-id'],
    });
  }, 120_000);
});
