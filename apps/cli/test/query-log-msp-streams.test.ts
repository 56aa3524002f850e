/**
 * Per-MSP query-log destinations (docs/operations.md "Query-log streaming" "Per-MSP destinations"):
 * a real `cordon serve` with two MSPs, each with one customer (locations 127.0.0.1/32 and
 * 127.0.0.2/32). Each MSP admin adds its destinations through the API (MSP A an NDJSON receiver with
 * a token, MSP B an RFC 5424 syslog listener and an NDJSON receiver, all on loopback, which the
 * operator allows with `CORDON_OUTBOUND_ALLOW`); after `dig` queries from each customer's address,
 * each destination holds its own MSP's customers' queries and never the other's. A disabled
 * destination gets nothing more once the writer thread has re-read the table.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiSession, apiLogin } from '../../../e2e/support/api.ts';
import { CLI, type CordonProcess, startCordon } from '../../../e2e/support/cordon.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';
import { bootPort, loopbackServeEnv } from './helpers/serve-test.ts';

const execFileAsync = promisify(execFile);
const ADMIN = { email: 'root@msp-streams.test', password: 'Sup3r-secret' };
const TOKEN_A = 'Splunk msp-a-hec-token-0123456789';

/** Polls `check` every 200 ms until it returns a value, for at most `ms`. @throws Error naming `what` */
async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  ms: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `dig` at the resolver from `source` (a customer's location): its status (`NOERROR`…). */
async function dig(port: number, source: string, name: string): Promise<string> {
  const { stdout } = await execFileAsync('dig', [
    '@127.0.0.1',
    '-p',
    String(port),
    '-b',
    source,
    '+tries=1',
    '+time=3',
    name,
    'A',
  ]);
  return /status: ([A-Z]+)/.exec(stdout)?.[1] ?? '';
}

/** A loopback NDJSON receiver: the lines and Authorization headers it got. */
async function ndjsonReceiver() {
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
  return {
    lines,
    auth,
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/services/collector/raw`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A loopback syslog listener over TCP: the messages, split by their octet counts (RFC 6587 §3.4.1). */
async function syslogListener() {
  const messages: string[] = [];
  const server = net.createServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      pending = Buffer.concat([pending, d]);
      for (;;) {
        const space = pending.indexOf(0x20);
        if (space < 0) return;
        const length = Number(pending.subarray(0, space).toString());
        if (pending.length < space + 1 + length) return;
        messages.push(pending.subarray(space + 1, space + 1 + length).toString());
        pending = pending.subarray(space + 1 + length);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { messages, port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

describe('query-log streams per MSP: each MSP gets its own customers only', () => {
  let upstream: FakeUpstream;
  let dir: string;
  let cordon: CordonProcess;
  let dnsPort = 0;
  let root: ApiSession;
  const ids = { a: { msp: 0, customer: 0 }, b: { msp: 0, customer: 0 } };
  const streams = { a: 0, bSyslog: 0, bNdjson: 0 };
  let receiverA: Awaited<ReturnType<typeof ndjsonReceiver>>;
  let receiverB: Awaited<ReturnType<typeof ndjsonReceiver>>;
  let syslogB: Awaited<ReturnType<typeof syslogListener>>;
  let mspA: ApiSession;

  /** An MSP with one customer whose location claims `address`, and its admin's session. */
  async function tenant(n: 'a' | 'b', address: string): Promise<ApiSession> {
    const msp = await root.call('POST', '/msp', {
      name: `MSP ${n}`,
      company_name: `MSP ${n} Ltd`,
      admin_email: `msp-${n}@msp-streams.test`,
      admin_password: 'Passw0rd!',
    });
    const mspId = (msp.body as { id: number }).id;
    const customer = await root.call('POST', '/users/', {
      accountName: `Customer ${n}`,
      msp_id: mspId,
      timezone: 'UTC',
      admin_email: `cust-${n}@msp-streams.test`,
      admin_password: 'Passw0rd!',
    });
    const customerId = (customer.body as { id: number }).id;
    ids[n] = { msp: mspId, customer: customerId };
    const policy = await root.call('POST', '/policies', { user_id: customerId, name: 'Staff', filtering_level: 'low' });
    const located = await root.call('POST', `/users/${customerId}/locations/staticip`, {
      name: 'Office',
      policy_id: (policy.body as { id: number }).id,
      addresses: [`${address}/32`],
    });
    expect(located.status).toBeLessThan(300);
    return apiLogin(bootPort(cordon, 'http'), `msp-${n}@msp-streams.test`, 'Passw0rd!');
  }

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    dir = mkdtempSync(join(tmpdir(), 'cordon-msp-streams-'));
    receiverA = await ndjsonReceiver();
    receiverB = await ndjsonReceiver();
    syslogB = await syslogListener();
    cordon = await startCordon(
      {
        ...loopbackServeEnv(dir, upstream.port, ADMIN),
        CORDON_LOG_LEVEL: 'info',
        // The operator lets tenants' destinations reach this machine's loopback (the test's receivers).
        CORDON_OUTBOUND_ALLOW: '127.0.0.0/8',
      },
      90_000,
      CLI,
    );
    dnsPort = bootPort(cordon, 'dns');
    root = await apiLogin(bootPort(cordon, 'http'), ADMIN.email, ADMIN.password);
    mspA = await tenant('a', '127.0.0.1');
    const mspB = await tenant('b', '127.0.0.2');

    const add = async (session: ApiSession, body: Record<string, unknown>) => {
      const res = await session.call('POST', '/log-streams', body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return (res.body as { id: number }).id;
    };
    streams.a = await add(mspA, { name: 'A SIEM', format: 'ndjson', address: receiverA.url, authorization: TOKEN_A });
    streams.bSyslog = await add(mspB, {
      name: 'B syslog',
      format: 'syslog',
      address: `tcp://127.0.0.1:${syslogB.port}`,
    });
    streams.bNdjson = await add(mspB, { name: 'B SIEM', format: 'ndjson', address: receiverB.url });
    // The writer thread re-reads the destinations every 5 s and logs each one it opens.
    await eventually(
      () => (cordon.output.filter((l) => l.includes(': opened')).length >= 3 ? true : undefined),
      20_000,
      'the three destinations opened',
    );
    // Each customer's location in force.
    for (const source of ['127.0.0.1', '127.0.0.2']) {
      await eventually(
        async () => ((await dig(dnsPort, source, 'ready.example')) === 'NOERROR' ? true : undefined),
        15_000,
        `the location of ${source}`,
      );
    }
  }, 150_000);

  afterAll(async () => {
    await cordon?.stop();
    receiverA?.close();
    receiverB?.close();
    syslogB?.close();
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("streams each MSP's customers' queries to that MSP's destinations only", async () => {
    for (let i = 0; i < 3; i++) {
      expect(await dig(dnsPort, '127.0.0.1', `q${i}.customer-a.example`)).toBe('NOERROR');
      expect(await dig(dnsPort, '127.0.0.2', `q${i}.customer-b.example`)).toBe('NOERROR');
    }
    const names = (lines: Array<Record<string, unknown>>) => lines.map((l) => String(l.qname));
    await eventually(
      () =>
        names(receiverA.lines).filter((n) => n.endsWith('customer-a.example')).length === 3 &&
        names(receiverB.lines).filter((n) => n.endsWith('customer-b.example')).length === 3 &&
        syslogB.messages.filter((m) => m.includes('customer-b.example')).length === 3
          ? true
          : undefined,
      15_000,
      'the queries at their MSPs',
    );
    // A's receiver: A's customer only, with A's token; B's two destinations: B's customer only.
    expect(receiverA.lines.every((l) => l.msp_id === ids.a.msp && l.customer_id === ids.a.customer)).toBe(true);
    expect(names(receiverA.lines).some((n) => n.includes('customer-b'))).toBe(false);
    expect(receiverA.auth.every((h) => h === TOKEN_A)).toBe(true);
    expect(receiverB.lines.every((l) => l.msp_id === ids.b.msp && l.customer_id === ids.b.customer)).toBe(true);
    expect(receiverB.auth.every((h) => h === undefined)).toBe(true);
    expect(syslogB.messages.some((m) => m.includes('customer-a'))).toBe(false);
    const line = syslogB.messages.find((m) => m.includes('q0.customer-b.example'))!;
    expect(line).toMatch(/^<134>1 \S+ \S+ cordon - query \[query@32473 /);
    expect(line).toContain(`customer_id="${ids.b.customer}" msp_id="${ids.b.msp}"`);
    // The token never reaches the log; the API shows only its hint, and when rows were last delivered.
    expect(cordon.output.join('\n')).not.toContain('msp-a-hec-token');
    const shown = await eventually(
      async () => {
        const got = await mspA.call('GET', `/log-streams/${streams.a}`);
        return (got.body as { last_delivered_at: string | null }).last_delivered_at !== null ? got.body : undefined;
      },
      15_000,
      'the delivery time written back',
    );
    expect(shown).toMatchObject({ authorization_hint: 'Splunk …6789', last_error: null });
  });

  it('stops streaming to a destination its MSP disables', async () => {
    const disabled = await mspA.call('PATCH', `/log-streams/${streams.a}`, { enabled: false });
    expect(disabled.status).toBe(200);
    // Every writer thread (one per resolving thread) that opened it closes it.
    const ofA = (what: string) => cordon.output.filter((l) => l.includes(`stream ${streams.a} `) && l.includes(what));
    await eventually(
      () => (ofA('closed').length >= ofA(': opened').length ? true : undefined),
      15_000,
      "A's destination closed",
    );
    const before = receiverA.lines.length;
    expect(await dig(dnsPort, '127.0.0.1', 'after-disable.customer-a.example')).toBe('NOERROR');
    expect(await dig(dnsPort, '127.0.0.2', 'after-disable.customer-b.example')).toBe('NOERROR');
    // B's query, streamed by the same writer thread after A's, arrives; A's goes nowhere.
    await eventually(
      () => (receiverB.lines.some((l) => l.qname === 'after-disable.customer-b.example') ? true : undefined),
      15_000,
      "B's later query",
    );
    expect(receiverA.lines.length).toBe(before);
    expect(receiverB.lines.some((l) => String(l.qname).includes('customer-a'))).toBe(false);
  });
});
