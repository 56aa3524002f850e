/**
 * Query-log streaming (docs/operations.md "Query-log streaming"): a real `cordon serve` streams the
 * queries `dig` makes to (a) dnstap, read by Debian's `fstrm_capture` and printed by `dnstap-ldns`,
 * (b) RFC 5424 syslog received by Debian's `rsyslogd` on loopback, (c) NDJSON batches POSTed to a
 * loopback receiver — each with the decision and the tenant. A second resolver on the same database
 * with dead sinks (nothing listening, a dnstap reader that never answers the handshake, an HTTP
 * receiver that never answers) still answers every query, and counts what its full buffers drop.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiLogin } from '../../../e2e/support/api.ts';
import { CLI, type CordonProcess, startCordon } from '../../../e2e/support/cordon.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';

const execFileAsync = promisify(execFile);
const ADMIN = { email: 'root@streams.test', password: 'Sup3r-secret' };
const TOKEN = 'Splunk s3cret-hec-token';
const BLOCKED = 'blocked-stream.example';
const ALLOWED = 'allowed-stream.example';
/** The names the checked `dig` queries ask, once the block is in force (earlier queries for BLOCKED were allowed). */
const DIG_BLOCKED = `www.${BLOCKED}`;
const DIG_ALLOWED = `www.${ALLOWED}`;

/** A port free on 127.0.0.1 now (for rsyslogd, which cannot report a port it chose). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A bound port from the boot line, e.g. `dns` → `dns=127.0.0.1:N`. */
function bootPort(cordon: CordonProcess, key: string): number {
  const line = cordon.output.find((l) => l.startsWith('cordon serving:')) ?? '';
  return Number(new RegExp(` ${key}=127\\.0\\.0\\.1:(\\d+)`).exec(line)?.[1]);
}

/** Polls `check` every 200 ms until it returns a value, for at most `ms`. @throws Error with the last failure */
async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  ms: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what} not within ${ms} ms${last ? `: ${last}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * `dig` at the resolver: its output. Not synchronous: the fake upstream answers from this process.
 */
async function dig(port: number, name: string, ...options: string[]): Promise<string> {
  const { stdout } = await execFileAsync('dig', [
    '@127.0.0.1',
    '-p',
    String(port),
    '+tries=1',
    '+time=3',
    ...options,
    name,
    'A',
  ]);
  return stdout;
}

/** The rcode of `dig`'s status line (`NOERROR`, `NXDOMAIN`…). */
const status = (out: string) => /status: ([A-Z]+)/.exec(out)?.[1] ?? '';

/** `count` A queries over UDP, `parallel` at a time; resolves to each answer's round trip, ms. @throws when one goes unanswered 5 s */
async function burst(port: number, count: number, parallel: number): Promise<number[]> {
  const socket = dgram.createSocket('udp4');
  const waiting = new Map<number, (ms: number) => void>();
  socket.on('message', (msg) => waiting.get(msg.readUInt16BE(0))?.(0));
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  const times: number[] = [];
  let next = 0;
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const id = i & 0xffff;
      const started = performance.now();
      const timer = setTimeout(() => reject(new Error(`query ${i} unanswered`)), 5000);
      waiting.set(id, () => {
        clearTimeout(timer);
        waiting.delete(id);
        times.push(performance.now() - started);
        resolve();
      });
      socket.send(
        dnsPacket.encode({
          type: 'query',
          id,
          flags: dnsPacket.RECURSION_DESIRED,
          questions: [{ type: 'A', name: `q${i}.burst.example`, class: 'IN' }],
        }),
        port,
        '127.0.0.1',
      );
    });
  const lane = async () => {
    while (next < count) await one(next++);
  };
  try {
    await Promise.all(Array.from({ length: parallel }, lane));
  } finally {
    socket.close();
  }
  return times;
}

/** The sample values of a metric in an exposition, keyed by their label text. */
function samples(exposition: string, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of exposition.split('\n')) {
    const m = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`).exec(line);
    if (m) out[m[1] ?? ''] = Number(m[2]);
  }
  return out;
}

/** Protobuf fields of `buf` (varints and length-delimited only, as dnstap uses besides fixed32). */
function protoFields(buf: Buffer): Map<number, Array<number | Buffer>> {
  const fields = new Map<number, Array<number | Buffer>>();
  let i = 0;
  const varint = () => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = buf[i++]!;
      v += (b & 0x7f) * mul;
      mul *= 128;
      if (b < 0x80) return v;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    let value: number | Buffer;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const len = varint();
      value = buf.subarray(i, i + len);
      i += len;
    } else if (wire === 5) {
      value = buf.readUInt32LE(i);
      i += 4;
    } else throw new Error(`wire type ${wire}`);
    fields.set(field, [...(fields.get(field) ?? []), value]);
  }
  return fields;
}

/** The data frames of a Frame Streams file (control frames skipped: escape 0, then their length). */
function frameStreamData(file: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  while (i + 4 <= file.length) {
    const len = file.readUInt32BE(i);
    if (len === 0) {
      i += 8 + file.readUInt32BE(i + 4);
      continue;
    }
    out.push(file.subarray(i + 4, i + 4 + len));
    i += 4 + len;
  }
  return out;
}

describe('query-log streams: dnstap, syslog, NDJSON', () => {
  let upstream: FakeUpstream;
  let dir: string;
  let cordon: CordonProcess;
  let capture: ChildProcess;
  let rsyslog: ChildProcess;
  let receiver: http.Server;
  const posts: Array<{ auth: string | undefined; type: string | undefined; lines: Array<Record<string, unknown>> }> =
    [];
  let ids: { msp: number; customer: number };
  let dnsPort = 0;
  let httpPort = 0;
  const dnstapFile = () => join(dir, 'dnstap.fstrm');
  const syslogFile = () => join(dir, 'syslog.log');
  let common: Record<string, string>;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    dir = mkdtempSync(join(tmpdir(), 'cordon-streams-'));
    const socket = join(dir, 'dnstap.sock');
    capture = spawn('fstrm_capture', ['-t', 'protobuf:dnstap.Dnstap', '-u', socket, '-w', dnstapFile()], {
      stdio: 'ignore',
    });
    const syslogPort = await freePort();
    writeFileSync(
      join(dir, 'rsyslog.conf'),
      [
        `global(workDirectory="${dir}")`,
        'module(load="imtcp")',
        `input(type="imtcp" address="127.0.0.1" port="${syslogPort}")`,
        `action(type="omfile" file="${syslogFile()}" template="RSYSLOG_SyslogProtocol23Format")`,
        '',
      ].join('\n'),
    );
    rsyslog = spawn('rsyslogd', ['-n', '-f', join(dir, 'rsyslog.conf'), '-i', join(dir, 'rsyslogd.pid')], {
      stdio: 'ignore',
    });
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => {
        body += d.toString();
      });
      req.on('end', () => {
        posts.push({
          auth: req.headers.authorization,
          type: req.headers['content-type'],
          lines: body
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Record<string, unknown>),
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    await eventually(() => (existsSync(socket) ? true : undefined), 5000, 'fstrm_capture listening');
    common = {
      CORDON_DATA_DIR: dir,
      CORDON_HTTP_ADDR: '127.0.0.1:0',
      CORDON_DNS_ADDR: '127.0.0.1:0',
      CORDON_BLOCKPAGE_ADDR: '127.0.0.1:0',
      CORDON_BLOCKPAGE_HTTPS_ADDR: '127.0.0.1:0',
      CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
      CORDON_ADMIN_EMAIL: ADMIN.email,
      CORDON_ADMIN_PASSWORD: ADMIN.password,
      CORDON_LOG_LEVEL: 'info',
    };
    cordon = await startCordon(
      {
        ...common,
        CORDON_DNSTAP: `unix:${socket}`,
        CORDON_SYSLOG: `tcp://127.0.0.1:${syslogPort}`,
        CORDON_LOG_STREAM_URL: `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}/services/collector/raw`,
        CORDON_LOG_STREAM_AUTHORIZATION: TOKEN,
      },
      90_000,
      CLI,
    );
    dnsPort = bootPort(cordon, 'dns');
    httpPort = bootPort(cordon, 'http');

    // A customer whose location claims 127.0.0.1 under a policy that blocks BLOCKED.
    const admin = await apiLogin(httpPort, ADMIN.email, ADMIN.password);
    const msp = await admin.call('POST', '/msp', {
      name: 'MSP',
      company_name: 'MSP Ltd',
      admin_email: 'msp@streams.test',
      admin_password: 'Passw0rd!',
    });
    const customer = await admin.call('POST', '/users/', {
      accountName: 'Acme',
      msp_id: (msp.body as { id: number }).id,
      timezone: 'UTC',
      admin_email: 'acme@streams.test',
      admin_password: 'Passw0rd!',
    });
    ids = { msp: (msp.body as { id: number }).id, customer: (customer.body as { id: number }).id };
    const policy = await admin.call('POST', '/policies', {
      user_id: ids.customer,
      name: 'Staff',
      filtering_level: 'low',
    });
    const policyId = (policy.body as { id: number }).id;
    const blocked = await admin.call('POST', `/policies/${policyId}/domains/block?user_id=${ids.customer}`, {
      domain: BLOCKED,
      include_subdomains: true,
    });
    expect(blocked.status).toBeLessThan(300);
    const located = await admin.call('POST', `/users/${ids.customer}/locations/staticip`, {
      name: 'Office',
      policy_id: policyId,
      addresses: ['127.0.0.1/32'],
    });
    expect(located.status).toBeLessThan(300);
    // The resolver answers once it has the location and the block (NXDOMAIN or the block page's address).
    await eventually(
      async () => (status(await dig(dnsPort, ALLOWED)) === 'NOERROR' ? true : undefined),
      15_000,
      'the location',
    );
    await eventually(
      async () => {
        const out = await dig(dnsPort, BLOCKED);
        return /\sA\s+127\.0\.0\.1/.test(out) || status(out) === 'NXDOMAIN' ? true : undefined;
      },
      15_000,
      'the block',
    );
    await dig(dnsPort, DIG_BLOCKED);
    await dig(dnsPort, DIG_ALLOWED);
  }, 120_000);

  afterAll(async () => {
    await cordon?.stop();
    capture?.kill('SIGTERM');
    rsyslog?.kill('SIGTERM');
    receiver?.close();
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('POSTs NDJSON batches with the token, the decision and the tenant', async () => {
    const lines = await eventually(
      () => {
        const all = posts.flatMap((p) => p.lines);
        return all.some((l) => l.qname === DIG_BLOCKED) && all.some((l) => l.qname === DIG_ALLOWED) ? all : undefined;
      },
      10_000,
      'the dig queries over NDJSON',
    );
    expect(lines.find((l) => l.qname === DIG_BLOCKED)).toMatchObject({
      decision: 'blocked',
      customer_id: ids.customer,
      msp_id: ids.msp,
      qtype: 'A',
    });
    expect(lines.find((l) => l.qname === DIG_ALLOWED)).toMatchObject({ decision: 'allowed', msp_id: ids.msp });
    expect(posts.every((p) => p.auth === TOKEN && p.type === 'application/x-ndjson')).toBe(true);
    // The token is never printed, neither in the boot line nor in the log.
    expect(cordon.output.join('\n')).not.toContain('s3cret');
    expect(cordon.output.find((l) => l.startsWith('cordon serving:'))).toContain('log_streams=dnstap unix:');
  });

  it('sends RFC 5424 messages that rsyslogd receives, one structured-data element per query', async () => {
    const text = await eventually(
      () => {
        const t = existsSync(syslogFile()) ? readFileSync(syslogFile(), 'utf8') : '';
        return t.includes(`qname="${DIG_BLOCKED}"`) && t.includes(`qname="${DIG_ALLOWED}"`) ? t : undefined;
      },
      10_000,
      'the queries in rsyslog',
    );
    const line = text.split('\n').find((l) => l.includes(`qname="${DIG_BLOCKED}"`))!;
    expect(line).toMatch(/^<133>1 \d{4}-\d\d-\d\dT[\d:.]+Z \S+ cordon - query \[query@32473 /);
    expect(line).toContain('decision="blocked"');
    expect(line).toContain(`customer_id="${ids.customer}" msp_id="${ids.msp}"`);
    expect(text.split('\n').find((l) => l.includes(`qname="${DIG_ALLOWED}"`))).toMatch(/^<134>1 .*decision="allowed"/);
  });

  it('counts each stream in /metrics', async () => {
    const sent = await eventually(
      async () => {
        const s = samples(
          await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text(),
          'cordon_dns_stream_rows_total',
        );
        return ['dnstap', 'syslog', 'ndjson'].every((k) => (s[`{sink="${k}",outcome="sent"}`] ?? 0) >= 2)
          ? s
          : undefined;
      },
      10_000,
      'sent rows in the metrics',
    );
    expect(sent['{sink="dnstap",outcome="dropped"}'] ?? 0).toBe(0);
    const exposition = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
    expect(samples(exposition, 'cordon_dns_stream_connected')).toEqual({
      '{sink="dnstap"}': 1,
      '{sink="syslog"}': 1,
      '{sink="ndjson"}': 1,
    });
  });

  it('streams dnstap CLIENT_RESPONSE frames that fstrm_capture writes and dnstap-ldns prints, the decision in extra', async () => {
    // Stopping the resolver ends the stream (STOP, FINISH); then fstrm_capture closes its file.
    expect(await cordon.stop()).toBe(0);
    capture.kill('SIGTERM');
    await new Promise((r) => (capture.exitCode !== null ? r(null) : capture.once('exit', r)));
    const printed = execFileSync('dnstap-ldns', ['-r', dnstapFile()], { encoding: 'utf8' });
    expect(printed).toMatch(new RegExp(`CR 127\\.0\\.0\\.1 UDP \\d+b "${DIG_BLOCKED.replaceAll('.', '\\.')}\\." IN A`));
    expect(printed).toContain(`"${DIG_ALLOWED}." IN A`);
    // The extra field (3) of the frame whose query message (14 → 10) asks for DIG_BLOCKED.
    const frames = frameStreamData(readFileSync(dnstapFile())).map(protoFields);
    const blocked = frames.find((f) => {
      const message = protoFields(f.get(14)![0] as Buffer);
      return (message.get(10)![0] as Buffer).includes(Buffer.from('\x03www\x0eblocked-stream', 'latin1'));
    })!;
    expect(blocked.get(15)).toEqual([1]);
    expect(protoFields(blocked.get(14)![0] as Buffer).get(1)).toEqual([6]);
    expect(JSON.parse((blocked.get(3)![0] as Buffer).toString())).toMatchObject({
      decision: 'blocked',
      customer_id: ids.customer,
      msp_id: ids.msp,
    });
  });

  it('answers every query while the sinks are dead, and drops with a counter', async () => {
    // Nothing listening (syslog); a dnstap reader that never answers READY; an HTTP receiver that never answers.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const stuck = http.createServer(() => undefined);
    await new Promise<void>((r) => stuck.listen(0, '127.0.0.1', () => r()));
    // The syslog sink's port: one below the ephemeral range, which no other test's listen(0) can be
    // handed while this one runs (a freed ephemeral port once was, and took 50 rows); the discard port,
    // checked to refuse connections first.
    const refusedPort = 9;
    const refused = await new Promise<boolean>((resolve) => {
      const probe = net.connect(refusedPort, '127.0.0.1');
      probe.on('connect', () => {
        probe.destroy();
        resolve(false);
      });
      probe.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
    });
    expect(refused, `something listens on 127.0.0.1:${refusedPort}; this test needs it closed`).toBe(true);
    const dead = await startCordon(
      {
        ...common,
        CORDON_ROLES: 'resolver',
        CORDON_METRICS_ADDR: '127.0.0.1:0',
        CORDON_DNSTAP: `tcp:127.0.0.1:${(silent.address() as net.AddressInfo).port}`,
        CORDON_SYSLOG: `tcp://127.0.0.1:${refusedPort}`,
        CORDON_LOG_STREAM_URL: `http://127.0.0.1:${(stuck.address() as net.AddressInfo).port}/`,
        CORDON_LOG_STREAM_BUFFER: '50',
      },
      90_000,
      CLI,
    );
    try {
      const port = bootPort(dead, 'dns');
      await eventually(
        async () => (status(await dig(port, ALLOWED)) === 'NOERROR' ? true : undefined),
        15_000,
        'the location',
      );
      const times = await burst(port, 400, 20);
      expect(times).toHaveLength(400);
      // Loose (a shared, noisy machine): a query waiting on a sink would wait seconds.
      expect(Math.max(...times)).toBeLessThan(2000);
      const metrics = `http://127.0.0.1:${bootPort(dead, 'metrics')}/metrics`;
      const rows = await eventually(
        async () => {
          const s = samples(await (await fetch(metrics)).text(), 'cordon_dns_stream_rows_total');
          return ['dnstap', 'syslog', 'ndjson'].every((k) => (s[`{sink="${k}",outcome="dropped"}`] ?? 0) >= 300)
            ? s
            : undefined;
        },
        10_000,
        'dropped rows in the metrics',
      );
      expect(rows['{sink="dnstap",outcome="sent"}'] ?? 0).toBe(0);
      expect(rows['{sink="syslog",outcome="sent"}'] ?? 0).toBe(0);
      expect(samples(await (await fetch(metrics)).text(), 'cordon_dns_stream_connected')).toEqual({
        '{sink="dnstap"}': 0,
        '{sink="syslog"}': 0,
        '{sink="ndjson"}': 0,
      });
    } finally {
      await dead.stop();
      silent.close();
      stuck.closeAllConnections();
      stuck.close();
    }
  }, 60_000);
});
