/**
 * The query-log streams' encodings, targets and sinks (querylog/streams/*; docs/operations.md
 * "Query-log streaming"): the dnstap protobuf and Frame Streams control frames, RFC 5424 with RFC
 * 6587 octet counting, target parsing, a full buffer dropping and counting, syslog over TLS with a
 * given CA, an NDJSON receiver refusing a batch.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import {
  controlFrame,
  dnstapFrame,
  FSTRM,
  questionMessage,
  type StreamRow,
  syslogFrame,
} from '../src/querylog/streams/encode.ts';
import { DnstapSink, NdjsonSink, SyslogSink } from '../src/querylog/streams/sinks.ts';
import { parseDnstapTarget, parseNdjsonTarget, parseSyslogTarget } from '../src/querylog/streams/targets.ts';

const ROW: StreamRow = {
  ts: Date.UTC(2026, 10, 27, 12, 0, 0, 250),
  customer_id: 7,
  msp_id: 3,
  location_id: 9,
  policy_id: null,
  client_ip: '::ffff:192.0.2.1',
  qname: 'ads.example',
  qtype: 'HTTPS',
  protocol: 'dot',
  action: 'blocked',
  reason: 'category',
  categories: '4,12',
  rcode: 'NXDOMAIN',
  answer_source: 'synthesized',
  latency_us: 1500,
  matched_name: 'a"b\\c]d',
};

/** Protobuf fields of `buf`: varints, fixed32 and length-delimited (what dnstap uses). */
function fields(buf: Buffer): Map<number, Array<number | Buffer>> {
  const out = new Map<number, Array<number | Buffer>>();
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
    let value: number | Buffer;
    if ((key & 7) === 0) value = varint();
    else if ((key & 7) === 5) {
      value = buf.readUInt32LE(i);
      i += 4;
    } else {
      const len = varint();
      value = buf.subarray(i, i + len);
      i += len;
    }
    out.set(key >>> 3, [...(out.get(key >>> 3) ?? []), value]);
  }
  return out;
}

/** Polls `check` every 50 ms until true, for at most `ms`. */
async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const dir = mkdtempSync(join(tmpdir(), 'cordon-streams-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dnstap encoding', () => {
  it('frames a Dnstap MESSAGE holding a CLIENT_RESPONSE, the decision and tenant in extra', () => {
    const frame = dnstapFrame(ROW, Buffer.from('host'), Buffer.from('cordon'));
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
    const top = fields(frame.subarray(4));
    expect(top.get(1)).toEqual([Buffer.from('host')]);
    expect(top.get(2)).toEqual([Buffer.from('cordon')]);
    expect(top.get(15)).toEqual([1]);
    expect(JSON.parse((top.get(3)![0] as Buffer).toString())).toEqual({
      decision: 'blocked',
      reason: 'category',
      categories: [4, 12],
      customer_id: 7,
      msp_id: 3,
      location_id: 9,
      policy_id: null,
      matched_name: 'a"b\\c]d',
    });
    const msg = fields(top.get(14)![0] as Buffer);
    expect(msg.get(1)).toEqual([6]);
    expect(msg.get(2)).toEqual([2]);
    expect(msg.get(3)).toEqual([3]);
    expect(msg.get(4)).toEqual([Buffer.from('00000000000000000000ffffc0000201', 'hex')]);
    expect(msg.get(8)).toEqual([ROW.ts / 1000 - 0.25]);
    expect(msg.get(9)).toEqual([250_000_000]);
    expect(msg.get(13)).toEqual([251_500_000]);
    expect(msg.get(10)).toEqual([questionMessage(ROW, false)]);
    expect(msg.get(14)).toEqual([questionMessage(ROW, true)]);
  });

  it('rebuilds the question: id 0, RD, the qtype (HTTPS = 65) and for the response QR, RA and the rcode', () => {
    const q = questionMessage(ROW, false);
    const r = questionMessage(ROW, true);
    expect(q.readUInt16BE(2)).toBe(0x0100);
    expect(r.readUInt16BE(2)).toBe(0x8183);
    expect(q.subarray(12, 12 + 13)).toEqual(Buffer.from('\x03ads\x07example\x00', 'latin1'));
    expect(q.readUInt16BE(25)).toBe(65);
    expect(q.readUInt16BE(27)).toBe(1);
  });

  it('writes Frame Streams control frames: escape, length, type, CONTENT_TYPE field', () => {
    expect(controlFrame(FSTRM.READY, 'protobuf:dnstap.Dnstap')).toEqual(
      Buffer.concat([
        Buffer.from([0, 0, 0, 0, 0, 0, 0, 34, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 22]),
        Buffer.from('protobuf:dnstap.Dnstap'),
      ]),
    );
    expect(controlFrame(FSTRM.STOP)).toEqual(Buffer.from([0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 3]));
  });
});

describe('syslog encoding', () => {
  it('writes one octet-counted RFC 5424 message with one SD element, values escaped', () => {
    const frame = syslogFrame(ROW, 'resolver-1').toString();
    const [count, ...rest] = frame.split(' ');
    const message = rest.join(' ');
    expect(Number(count)).toBe(Buffer.byteLength(message));
    expect(message).toMatch(
      /^<133>1 2026-11-27T12:00:00\.250Z resolver-1 cordon - query \[query@32473 customer_id="7" msp_id="3" /,
    );
    expect(message).toContain('matched_name="a\\"b\\\\c\\]d"]');
    expect(message).toContain('categories="4,12"');
    expect(message).not.toContain('policy_id');
    expect(message.endsWith('] ads.example HTTPS blocked')).toBe(true);
  });
});

describe('stream targets', () => {
  it('parses each form and refuses the rest with the reason', () => {
    expect(parseDnstapTarget('unix:/run/cordon/dnstap.sock')).toEqual({
      kind: 'dnstap',
      path: '/run/cordon/dnstap.sock',
    });
    expect(parseDnstapTarget('tcp:[::1]:6000')).toEqual({ kind: 'dnstap', host: '::1', port: 6000 });
    expect(() => parseDnstapTarget('unix:relative.sock')).toThrow(/absolute/);
    expect(() => parseDnstapTarget('tcp:host:70000')).toThrow(/host:port/);
    expect(() => parseDnstapTarget('udp:host:53')).toThrow(/unix:\/path or tcp:host:port/);
    expect(parseSyslogTarget('tls://logs.example:6514', 'PEM')).toEqual({
      kind: 'syslog',
      host: 'logs.example',
      port: 6514,
      tls: true,
      ca: 'PEM',
    });
    expect(() => parseSyslogTarget('udp://logs.example:514')).toThrow(/tcp:\/\/host:port or tls/);
    expect(parseNdjsonTarget('http://127.0.0.1:8088/raw', 'Splunk t')).toEqual({
      kind: 'ndjson',
      url: 'http://127.0.0.1:8088/raw',
      authorization: 'Splunk t',
    });
    expect(() => parseNdjsonTarget('http://siem.example/raw')).toThrow(/https:\/\/ URL/);
    expect(() => parseNdjsonTarget('https://user:pw@siem.example/raw')).toThrow(/credentials/);
    expect(() => parseNdjsonTarget('https://siem.example/raw', 'a\r\nX-Evil: 1')).toThrow(/one line/);
  });
});

describe('stream sinks', () => {
  it('drops and counts rows beyond its buffer while the peer is absent, without waiting', async () => {
    const sink = new DnstapSink({ kind: 'dnstap', path: join(dir, 'nobody.sock') }, () => undefined, 10);
    for (let i = 0; i < 25; i++) sink.push(ROW);
    expect(sink.stats).toMatchObject({ sent: 0, dropped: 15, connected: 0 });
    await sink.close(0);
    expect(sink.stats).toMatchObject({ sent: 0, dropped: 25, connected: 0 });
  });

  it('drops, counts and logs once a row it cannot encode, without throwing', async () => {
    const logged: string[] = [];
    const sink = new DnstapSink({ kind: 'dnstap', path: join(dir, 'nobody.sock') }, (m) => logged.push(m), 10);
    const bad = { ...ROW, qname: undefined } as unknown as StreamRow;
    expect(() => {
      sink.push(bad);
      sink.push(bad);
    }).not.toThrow();
    sink.push(ROW);
    expect(sink.stats).toMatchObject({ sent: 0, dropped: 2 });
    expect(logged.filter((m) => m.includes('cannot be encoded'))).toHaveLength(1);
    await sink.close(0);
  });

  it('sends syslog over TLS to a server whose CA is given', async () => {
    const cert = join(dir, 'syslog.crt');
    const key = join(dir, 'syslog.key');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-days',
        '1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    let received = '';
    const server = tls.createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (s) =>
      s.on('data', (d: Buffer) => {
        received += d.toString();
      }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    const sink = new SyslogSink(
      { kind: 'syslog', host: '127.0.0.1', port, tls: true, ca: readFileSync(cert, 'utf8') },
      () => undefined,
    );
    sink.push(ROW);
    await until(() => received.includes('ads.example HTTPS blocked'), 5000);
    expect(sink.stats).toMatchObject({ sent: 1, dropped: 0, connected: 1 });
    await sink.close(500);
    server.close();
  });

  it('drops and counts an NDJSON batch the receiver refuses (401), and sends the next one', async () => {
    const statuses = [401, 204];
    const bodies: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => {
        body += d.toString();
      });
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(statuses.shift() ?? 204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const sink = new NdjsonSink({ kind: 'ndjson', url }, () => undefined);
    sink.push(ROW);
    sink.push(ROW);
    await until(() => sink.stats.dropped === 2, 5000);
    sink.push({ ...ROW, qname: 'next.example' });
    await until(() => sink.stats.sent === 1, 5000);
    expect(JSON.parse(bodies[1]!.trim())).toMatchObject({ qname: 'next.example', decision: 'blocked', msp_id: 3 });
    expect(sink.stats.connected).toBe(1);
    await sink.close(0);
    server.close();
  });
});
