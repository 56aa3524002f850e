import dgram from 'node:dgram';
import { testDialects } from '@cordon/db/testing';
import { Messages } from '@cordon/shared';
import dnsPacket from 'dns-packet';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TestApp } from '../../../test/helpers.ts';

/** A loopback upstream with one zone: `mail.example` (A, AAAA, MX, TXT), `www.example` (CNAME); other names NXDOMAIN. */
async function startZone(): Promise<{ port: number; asked: string[]; close: () => Promise<void> }> {
  const asked: string[] = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    const q = dnsPacket.decode(msg);
    const question = q.questions?.[0];
    if (!question) return;
    asked.push(`${question.type} ${question.name}`);
    const name = question.name;
    const answers: dnsPacket.Answer[] = [];
    let rcode: 'NOERROR' | 'NXDOMAIN' = 'NOERROR';
    if (name === 'mail.example') {
      if (question.type === 'A') answers.push({ type: 'A', name, ttl: 120, data: '192.0.2.25' });
      if (question.type === 'AAAA') answers.push({ type: 'AAAA', name, ttl: 120, data: '2001:db8::25' });
      if (question.type === 'MX')
        answers.push({ type: 'MX', name, ttl: 120, data: { preference: 10, exchange: 'mx1.example' } });
      if (question.type === 'TXT') answers.push({ type: 'TXT', name, ttl: 120, data: ['v=spf1 ', '-all'] });
    } else if (name === 'www.example') {
      if (question.type === 'CNAME') answers.push({ type: 'CNAME', name, ttl: 60, data: 'mail.example' });
    } else rcode = 'NXDOMAIN';
    const flags = dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (rcode === 'NXDOMAIN' ? 3 : 0);
    socket.send(
      dnsPacket.encode({ type: 'response', id: q.id, flags, questions: q.questions, answers }),
      rinfo.port,
      rinfo.address,
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    port: socket.address().port,
    asked,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

describe.each(testDialects())('DNS lookup through the upstreams on %s', (dialect) => {
  let t: TestApp;
  let zone: Awaited<ReturnType<typeof startZone>>;
  beforeEach(async () => {
    zone = await startZone();
    t = await createTestApp(dialect, { upstreams: [{ host: '127.0.0.1', port: zone.port }] });
  });
  afterEach(async () => {
    await t.close();
    await zone.close();
  });

  it('answers A, AAAA, CNAME, MX and TXT from the upstream, NXDOMAIN for an unknown name', async () => {
    const a = await createTenant(t, 1);
    const mail = await call(t.app, a.mspToken, 'GET', '/restapi/tools/dns?domain=Mail.Example.');
    expect(mail.statusCode, mail.body).toBe(200);
    expect(mail.json()).toMatchObject({
      domain: 'mail.example',
      upstreams: [`127.0.0.1:${zone.port}`],
      status: 'NOERROR',
    });
    expect(mail.json().records).toEqual(
      expect.arrayContaining([
        { type: 'A', data: '192.0.2.25', ttl: 120 },
        { type: 'AAAA', data: '2001:db8::25', ttl: 120 },
        { type: 'MX', data: '10 mx1.example', ttl: null },
        { type: 'TXT', data: 'v=spf1 -all', ttl: null },
      ]),
    );
    expect(zone.asked).toContain('MX mail.example');
    const www = await call(t.app, t.rootToken, 'GET', '/restapi/tools/dns?domain=www.example');
    expect(www.json().records).toContainEqual({ type: 'CNAME', data: 'mail.example', ttl: null });
    const none = await call(t.app, t.rootToken, 'GET', '/restapi/tools/dns?domain=nowhere.example');
    expect(none.json()).toMatchObject({ status: 'NXDOMAIN', records: [] });
  });

  it('refuses a URL and a customer admin', async () => {
    const a = await createTenant(t, 1);
    const url = await call(t.app, a.mspToken, 'GET', '/restapi/tools/dns?domain=https%3A%2F%2Fmail.example%2F');
    expect(url.statusCode).toBe(400);
    expect(url.json().fields).toEqual({ domain: Messages.domainOnly });
    expect((await call(t.app, a.customerToken, 'GET', '/restapi/tools/dns?domain=mail.example')).statusCode).toBe(403);
  });
});
