/**
 * The MSPs' query-log destinations on the writer thread's hub (querylog/streams/hub.ts, msp.ts;
 * docs/operations.md "Query-log streaming" "Per-MSP destinations"): each row goes to its own MSP's
 * destinations only, through the outbound guard (a loopback receiver only when allowed), a sealed
 * Authorization value opened with the deployment secret, a changed row reopened, a removed one closed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSecretBox } from '@cordon/pki/secrets';
import { OUTBOUND_FAILURE } from '@cordon/shared/outbound';
import { afterEach, describe, expect, it } from 'vitest';
import type { QueryLogRow } from '../src/querylog/row.ts';
import { StreamHub } from '../src/querylog/streams/hub.ts';
import type { MspStreamRow } from '../src/querylog/streams/msp.ts';

const SECRET = 'a-deployment-secret-of-at-least-32-characters';

function row(customer: number, qname: string): QueryLogRow {
  return {
    ts: Date.UTC(2026, 10, 27, 12),
    customer_id: customer,
    location_id: null,
    policy_id: null,
    client_ip: '192.0.2.1',
    qname,
    qtype: 'A',
    protocol: 'udp',
    action: 'allowed',
    reason: null,
    categories: '',
    rcode: 'NOERROR',
    answer_source: 'upstream',
    latency_us: 100,
    matched_name: null,
  } as unknown as QueryLogRow;
}

/** Polls `check` every 20 ms until true, for at most `ms`. */
async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A loopback NDJSON receiver: every line it got, and each request's Authorization header. */
async function receiver() {
  const lines: Array<Record<string, unknown>> = [];
  const auth: Array<string | undefined> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      auth.push(req.headers.authorization);
      for (const l of body.split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  let connections = 0;
  server.on('connection', () => {
    connections++;
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/raw`;
  return {
    lines,
    auth,
    url,
    connections: () => connections,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const destination = (id: number, msp: number, url: string, extra: Partial<MspStreamRow> = {}): MspStreamRow => ({
  id,
  msp_id: msp,
  format: 'ndjson',
  address: url,
  ca_pem: null,
  authorization: null,
  updated_at: '2026-11-27T12:00:00.000Z',
  ...extra,
});

describe('per-MSP log streams', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  /** A hub with no operator stream; customers 1 and 2 of MSP 10, customer 3 of MSP 20. */
  function hub(): StreamHub {
    const h = new StreamHub(
      [],
      () => undefined,
      async () =>
        new Map([
          [1, 10],
          [2, 10],
          [3, 20],
        ]),
    );
    closers.push(() => h.close(0));
    return h;
  }

  it("sends each row to its own MSP's destinations only, never another MSP's", async () => {
    const a = await receiver();
    const b = await receiver();
    closers.push(a.close, b.close);
    const h = hub();
    const sealed = createSecretBox(Buffer.from(SECRET, 'utf8')).seal('Splunk a-token');
    h.setMspDestinations([destination(1, 10, a.url, { authorization: sealed }), destination(2, 20, b.url)], {
      sealKey: SECRET,
      outboundAllow: ['127.0.0.0/8'],
    });
    h.push([row(1, 'one.a.example'), row(3, 'three.b.example'), row(2, 'two.a.example'), row(99, 'nobody.example')]);
    await until(() => h.mspStats().get(1)?.sent === 2 && h.mspStats().get(2)?.sent === 1, 5000);
    // Let any misrouted batch arrive too.
    await h.close(500);
    expect(a.lines.map((l) => l.qname)).toEqual(['one.a.example', 'two.a.example']);
    expect(a.lines.every((l) => l.msp_id === 10)).toBe(true);
    expect(b.lines.map((l) => l.qname)).toEqual(['three.b.example']);
    expect(a.auth).toEqual(['Splunk a-token']);
    expect(b.auth).toEqual([undefined]);
    // Their state, once, for the rows' write-back.
    const status = h.mspStatus();
    expect(status.map((s) => [s.id, s.deliveredAt > 0, s.error])).toEqual([
      [1, true, null],
      [2, true, null],
    ]);
    expect(h.mspStatus()).toEqual([]);
  });

  it('refuses a loopback destination unless the operator allows it, before connecting; the MSP is told one message', async () => {
    const a = await receiver();
    closers.push(a.close);
    const logged: string[] = [];
    const h = new StreamHub(
      [],
      (m) => logged.push(m),
      async () => new Map([[1, 10]]),
    );
    closers.push(() => h.close(0));
    h.setMspDestinations([destination(5, 10, a.url)], { outboundAllow: [] });
    h.push([row(1, 'refused.example')]);
    await until(() => logged.some((m) => m.includes('stream 5') && m.includes('refused')), 5000);
    // The detail is the operator's; the MSP's row gets the one message.
    expect(h.mspStatus()).toMatchObject([{ id: 5, deliveredAt: 0, error: OUTBOUND_FAILURE }]);
    expect(h.mspStats().get(5)).toMatchObject({ sent: 0, connected: 0 });
    expect(a.connections()).toBe(0);
  });

  it('reopens a changed destination, closes a removed one, and skips one it cannot open', async () => {
    const a = await receiver();
    const b = await receiver();
    closers.push(a.close, b.close);
    const logged: string[] = [];
    const h = new StreamHub(
      [],
      (m) => logged.push(m),
      async () => new Map([[1, 10]]),
    );
    closers.push(() => h.close(0));
    const allow = { outboundAllow: ['127.0.0.0/8'] };
    h.setMspDestinations([destination(1, 10, a.url)], allow);
    h.push([row(1, 'first.example')]);
    await until(() => a.lines.length === 1, 5000);
    // Moved to b (a new stamp): later rows go to b only.
    h.setMspDestinations([destination(1, 10, b.url, { updated_at: '2026-11-27T12:05:00.000Z' })], allow);
    h.push([row(1, 'second.example')]);
    await until(() => b.lines.length === 1, 5000);
    expect(a.lines.map((l) => l.qname)).toEqual(['first.example']);
    // Disabled or deleted: no longer read, no longer sent to.
    h.setMspDestinations([], allow);
    h.push([row(1, 'third.example')]);
    expect(h.mspStats().size).toBe(0);
    // A sealed value without the secret: not opened, logged once.
    const sealed = createSecretBox(Buffer.from(SECRET, 'utf8')).seal('Bearer x');
    for (let i = 0; i < 2; i++) h.setMspDestinations([destination(3, 10, a.url, { authorization: sealed })], allow);
    expect(logged.filter((m) => m.includes('stream 3: not opened'))).toHaveLength(1);
    expect(h.mspStats().size).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(b.lines.map((l) => l.qname)).toEqual(['second.example']);
  });
});
