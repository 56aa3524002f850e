import dgram from 'node:dgram';
import dnsPacket, { type Packet } from 'dns-packet';
import { afterEach, describe, expect, it } from 'vitest';
import {
  answerRcode,
  checkAnswer,
  PORT_MAX_AGE_MS,
  PORT_QUERIES,
  UpstreamClient,
  type UpstreamOptions,
  type UpstreamQuestion,
  type UpstreamResult,
} from '../src/upstream/client.ts';
import { type FakeUpstream, startFakeUpstream } from './helpers/fake-upstream.ts';

/** The wire question section (qname, qtype, qclass) of `name type IN`. */
function wireQuestion(name: string, type = 'A'): Buffer {
  return dnsPacket.encode({ type: 'query', id: 0, questions: [{ name, type: type as 'A' }] }).subarray(12);
}

/** `name A IN`, no DNSSEC bits. */
function ask(name: string, bits: Partial<UpstreamQuestion> = {}): UpstreamQuestion {
  return { question: wireQuestion(name), dnssecOk: false, checkingDisabled: false, ...bits };
}

function decoded(res: UpstreamResult): Packet | null {
  return res.kind === 'answer' ? dnsPacket.decode(res.message) : null;
}

function firstA(res: UpstreamResult): string | undefined {
  return (decoded(res)?.answers?.[0] as { data?: string } | undefined)?.data;
}

async function within(ms: number, check: () => boolean): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`not true within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A UDP upstream on 127.0.0.1 whose behaviour per query is a callback; records source ports and ids. */
async function scriptedUpstream(
  onQuery: (socket: dgram.Socket, query: Packet, rinfo: dgram.RemoteInfo) => void,
): Promise<{ port: number; seen: { port: number; id: number }[]; close: () => Promise<void> }> {
  const socket = dgram.createSocket('udp4');
  const seen: { port: number; id: number }[] = [];
  socket.on('message', (msg, rinfo) => {
    const query = dnsPacket.decode(msg);
    seen.push({ port: rinfo.port, id: query.id ?? 0 });
    onQuery(socket, query, rinfo);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  return { port: socket.address().port, seen, close: () => new Promise((r) => socket.close(() => r())) };
}

function reply(query: Packet, data: string, overrides: Partial<Packet> = {}): Buffer {
  const q = query.questions![0]!;
  return dnsPacket.encode({
    id: query.id ?? 0,
    type: 'response',
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
    questions: [q],
    answers: [{ name: q.name, type: 'A', class: 'IN', ttl: 300, data }],
    ...overrides,
  });
}

/** A UDP port on 127.0.0.1 that nothing listens on (bound, then closed): sends to it get ICMP port unreachable. */
async function closedPort(): Promise<number> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Short RTOs so that retransmissions happen within a test's few hundred ms (defaults: 200–800 ms). */
const FAST: UpstreamOptions = { minRtoMs: 20, maxRtoMs: 40, timeoutMs: 1000, probeIntervalMs: 60_000 };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function client(ports: number[], opts: UpstreamOptions = {}): UpstreamClient {
  const c = new UpstreamClient(
    ports.map((port) => ({ host: '127.0.0.1', port })),
    { ...FAST, ...opts },
  );
  cleanups.push(() => c.close());
  return c;
}

async function fake(): Promise<FakeUpstream> {
  const up = await startFakeUpstream();
  cleanups.push(() => up.close());
  return up;
}

describe('UpstreamClient anti-spoofing (RFC 5452)', () => {
  it('draws ports and ids at random, each port carrying at most PORT_QUERIES queries with distinct ids', async () => {
    const up = await scriptedUpstream((s, q, r) => s.send(reply(q, '192.0.2.1'), r.port, r.address));
    cleanups.push(up.close);
    const c = client([up.port]);
    const queries = PORT_QUERIES * 5;
    for (let i = 0; i < queries; i++) expect(firstA(await c.resolve(ask(`q${i}.example`)))).toBe('192.0.2.1');
    const byPort = new Map<number, number[]>();
    for (const { port, id } of up.seen) byPort.set(port, [...(byPort.get(port) ?? []), id]);
    // Five ports in turn (two drawing the same of ~64,000 is a 1-in-6,000 event: allow it).
    expect(byPort.size).toBeGreaterThanOrEqual(4);
    for (const ids of byPort.values()) {
      expect(ids.length).toBeLessThanOrEqual(PORT_QUERIES * (byPort.size === 5 ? 1 : 2));
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(new Set(up.seen.map((s) => s.id)).size).toBeGreaterThanOrEqual(queries - 4);
  });

  it('opens a fresh port once the current one is PORT_MAX_AGE_MS old, and closes the idle old one', async () => {
    const up = await scriptedUpstream((s, q, r) => s.send(reply(q, '192.0.2.1'), r.port, r.address));
    cleanups.push(up.close);
    let now = 0;
    const c = client([up.port], { now: () => now });
    expect(firstA(await c.resolve(ask('one.example')))).toBe('192.0.2.1');
    expect(firstA(await c.resolve(ask('two.example')))).toBe('192.0.2.1');
    now += PORT_MAX_AGE_MS;
    expect(firstA(await c.resolve(ask('three.example')))).toBe('192.0.2.1');
    const ports = up.seen.map((s) => s.port);
    expect(ports[0]).toBe(ports[1]);
    expect(ports[2]).not.toBe(ports[0]);
    // The first port was closed when the third query retired it: a datagram to it is refused (ICMP).
    const probe = dgram.createSocket('udp4');
    cleanups.push(() => new Promise<void>((r) => probe.close(() => r())));
    const refused = new Promise<boolean>((resolve) => {
      probe.on('error', () => resolve(true));
      probe.on('message', () => resolve(false));
    });
    await new Promise<void>((r) => probe.connect(ports[0]!, '127.0.0.1', () => r()));
    // The ICMP error of one datagram is reported on the socket's next receive: send until it shows.
    const resend = setInterval(() => probe.send(Buffer.from([0, 0])), 20);
    cleanups.push(() => clearInterval(resend));
    expect(await refused).toBe(true);
  });

  it('hands each of 200 concurrent queries on shared ports its own answer, answered in reverse order', async () => {
    const held: (() => void)[] = [];
    const up = await scriptedUpstream((s, q, r) => {
      const name = q.questions![0]!.name;
      const n = Number(name.slice(1, name.indexOf('.')));
      held.push(() => s.send(reply(q, `192.0.2.${n % 250}`), r.port, r.address));
      if (held.length === 200) for (const send of held.reverse()) send();
    });
    cleanups.push(up.close);
    const c = client([up.port], { minRtoMs: 2000, maxRtoMs: 2000, timeoutMs: 5000 });
    const results = await Promise.all(Array.from({ length: 200 }, (_, n) => c.resolve(ask(`n${n}.example`))));
    expect(results.map(firstA)).toEqual(results.map((_, n) => `192.0.2.${n % 250}`));
    expect(c.stats.retransmissions).toBe(0);
    expect(c.stats.mismatched).toBe(0);
    expect(new Set(up.seen.map((s) => s.port)).size).toBeGreaterThanOrEqual(Math.ceil(200 / PORT_QUERIES) - 1);
  });

  it('ignores answers from another port, with another id, for another question or malformed past it', async () => {
    const spoofer = dgram.createSocket('udp4');
    await new Promise<void>((r) => spoofer.bind(0, '127.0.0.1', () => r()));
    const up = await scriptedUpstream((s, q, r) => {
      // A forged answer from another port of the same host, right id and question: the kernel
      // drops it (the attempt's socket is connected), and checkAnswer would refuse it anyway.
      spoofer.send(reply(q, '6.6.6.6'), r.port, r.address);
      // From the upstream's own port but the wrong id, then the wrong question.
      s.send(reply({ ...q, id: ((q.id ?? 0) + 1) & 0xffff }, '6.6.6.7'), r.port, r.address);
      s.send(
        reply(q, '6.6.6.8', { questions: [{ name: 'other.example', type: 'A', class: 'IN' }] }),
        r.port,
        r.address,
      );
      // Right id and question, but its answer record is cut short: not a message.
      const cut = reply(q, '6.6.6.9');
      s.send(cut.subarray(0, cut.length - 3), r.port, r.address);
      setTimeout(() => s.send(reply(q, '192.0.2.1'), r.port, r.address), 50);
    });
    cleanups.push(up.close, () => new Promise<void>((r) => spoofer.close(() => r())));
    const c = client([up.port], { minRtoMs: 500, maxRtoMs: 500 });
    const res = await c.resolve(ask('victim.example'));
    expect(firstA(res)).toBe('192.0.2.1');
    expect(c.stats.mismatched).toBeGreaterThanOrEqual(3);
    expect(c.stats.retransmissions).toBe(0);
  });

  it('checkAnswer accepts only the queried address and port, a response, the id and the question', () => {
    const question = wireQuestion('Www.Example.com');
    const server = { host: '127.0.0.1', port: 53 };
    const query: Packet = { id: 7, questions: [{ name: 'www.example.com', type: 'A', class: 'IN' }] };
    const ok = reply(query, '192.0.2.1');
    expect(checkAnswer(ok, { address: '127.0.0.1', port: 53 }, server, 7, question)).toBe('ok');
    expect(checkAnswer(ok, { address: '::ffff:127.0.0.1', port: 53 }, server, 7, question)).toBe('ok');
    expect(checkAnswer(ok, { address: '127.0.0.1', port: 5353 }, server, 7, question)).toBe('wrong-source');
    expect(checkAnswer(ok, { address: '127.0.0.2', port: 53 }, server, 7, question)).toBe('wrong-source');
    expect(checkAnswer(ok, { address: '127.0.0.1', port: 53 }, server, 8, question)).toBe('wrong-id');
    const asQuery = Buffer.from(ok);
    asQuery[2] = asQuery[2]! & 0x7f;
    expect(checkAnswer(asQuery, { address: '127.0.0.1', port: 53 }, server, 7, question)).toBe('not-response');
    const aaaa = wireQuestion('www.example.com', 'AAAA');
    expect(checkAnswer(ok, { address: '127.0.0.1', port: 53 }, server, 7, aaaa)).toBe('wrong-question');
    expect(checkAnswer(ok.subarray(0, 20), { address: '127.0.0.1', port: 53 }, server, 7, question)).toBe(
      'wrong-question',
    );
  });

  it('answerRcode walks every record and reads the extended RCODE (RFC 6891 §6.1.3)', () => {
    const query: Packet = { id: 7, questions: [{ name: 'www.example.com', type: 'A', class: 'IN' }] };
    expect(answerRcode(reply(query, '192.0.2.1'))).toBe(0);
    expect(answerRcode(reply(query, '192.0.2.1', { flags: 3 }))).toBe(3);
    const cut = reply(query, '192.0.2.1');
    expect(answerRcode(cut.subarray(0, cut.length - 1))).toBe(-1);
    // An OPT record (RFC 6891 §6.1.2) appended: root, type 41, class 1232, TTL = EXTENDED-RCODE 1, version 0, flags 0.
    const opt = Buffer.from([0, 0, 41, 0x04, 0xd0, 1, 0, 0, 0, 0, 0]);
    const extended = Buffer.concat([reply(query, '192.0.2.1'), opt]);
    extended.writeUInt16BE(1, 10); // ARCOUNT
    expect(answerRcode(extended)).toBe(16); // BADVERS: EXTENDED-RCODE 1 over header RCODE 0
    const noOpt = Buffer.from(reply(query, '192.0.2.1'));
    noOpt.writeUInt16BE(2, 6); // ANCOUNT 2, one record present
    expect(answerRcode(noOpt)).toBe(-1);
  });
});

describe('UpstreamClient retransmission (RFC 1035 §4.2.1)', () => {
  it('answers 10 of 10 queries through one upstream that loses every second datagram', async () => {
    const up = await fake();
    up.dropEvery(2);
    const c = client([up.port]);
    let answered = 0;
    for (let i = 0; i < 10; i++) if (firstA(await c.resolve(ask(`drop${i}.example`))) === '192.0.2.10') answered++;
    expect(answered).toBe(10);
    expect(c.stats.retransmissions).toBeGreaterThanOrEqual(5);
    expect(c.stats.timeouts).toBe(0);
    expect(c.health()[0]).toMatchObject({ healthy: true, consecutiveFailures: 0 });
  });

  it('keeps earlier attempts listening: a late answer to the first attempt wins', async () => {
    let n = 0;
    const up = await scriptedUpstream((s, q, r) => {
      // The first attempt is answered late (after the retransmission); the retransmission never.
      if (n++ === 0) setTimeout(() => s.send(reply(q, '192.0.2.1'), r.port, r.address), 150);
    });
    cleanups.push(up.close);
    const c = client([up.port]);
    expect(firstA(await c.resolve(ask('late.example')))).toBe('192.0.2.1');
    expect(c.stats.retransmissions).toBeGreaterThanOrEqual(1);
    expect(up.seen.length).toBeGreaterThanOrEqual(2);
    // Each attempt had its own id; the late answer was no mismatch.
    expect(new Set(up.seen.map((s) => s.id)).size).toBe(up.seen.length);
    expect(c.stats.mismatched).toBe(0);
  });

  it('gives up when the budget runs out: a timeout failure', async () => {
    const up = await fake();
    up.setDown(true);
    const c = client([up.port], { timeoutMs: 300 });
    expect(await c.resolve(ask('silent.example'))).toEqual({ kind: 'failure', reason: 'timeout' });
    expect(c.stats.timeouts).toBe(1);
    expect(c.stats.retransmissions).toBeGreaterThanOrEqual(2); // 20, 40 (40 capped), 80, 160 ms of doubling waits
  });

  it('ends with a network failure when the only upstream refuses (ICMP port unreachable)', async () => {
    const c = client([await closedPort()], { timeoutMs: 5000 });
    const t0 = Date.now();
    expect(await c.resolve(ask('refused.example'))).toEqual({ kind: 'failure', reason: 'network' });
    expect(Date.now() - t0).toBeLessThan(4000); // before the 5 s budget: not a speed assertion
    expect(c.stats.errors).toBeGreaterThanOrEqual(1);
  });

  it('resolveAt retransmits to the routed server only, with no health bookkeeping', async () => {
    const pool = await fake();
    const route = await fake();
    route.dropEvery(2);
    const c = client([pool.port]);
    for (let i = 0; i < 4; i++) {
      const res = await c.resolveAt({ host: '127.0.0.1', port: route.port }, ask(`r${i}.corp.example`));
      expect(firstA(res)).toBe('192.0.2.10');
    }
    expect(pool.total()).toBe(0);
    expect(c.stats.retransmissions).toBeGreaterThanOrEqual(2);
    expect(c.health()[0]).toMatchObject({ healthy: true, consecutiveFailures: 0, rttMs: 0 });
  });

  it('retries a truncated answer over TCP at the same upstream, and fails as network when TCP is refused', async () => {
    // A UDP-only upstream: its truncated answer sends the query to TCP, where nothing listens.
    const up = await scriptedUpstream((s, q, r) =>
      s.send(reply(q, '192.0.2.1', { flags: dnsPacket.TRUNCATED_RESPONSE, answers: [] }), r.port, r.address),
    );
    cleanups.push(up.close);
    const c = client([up.port]);
    expect(await c.resolve(ask('tc.example'))).toEqual({ kind: 'failure', reason: 'network' });
    expect(c.stats.tcpFallbacks).toBe(1);
    expect(c.stats.retransmissions).toBe(0);
    expect(c.health()[0]?.healthy).toBe(true); // it answered over UDP
  });

  it('resolves queries in flight to a network failure on close', async () => {
    const up = await fake();
    up.setDown(true);
    const c = client([up.port]);
    const pending = c.resolve(ask('closing.example'));
    await within(1000, () => c.stats.queries >= 1);
    c.close();
    expect(await pending).toEqual({ kind: 'failure', reason: 'network' });
  });
});

describe('UpstreamClient DNSSEC bits (RFC 4035 §3.2, RFC 6840 §5.7–5.9)', () => {
  it('sends RD and AD always, CD and DO as the client set them, and relays the answer as received', async () => {
    const up = await fake();
    const c = client([up.port], { minRtoMs: 500, maxRtoMs: 500 }); // one attempt each, even on a loaded machine
    const plain = await c.resolve(ask('plain.example'));
    const cd = await c.resolve(ask('cd.example', { checkingDisabled: true }));
    const both = await c.resolve(ask('both.example', { checkingDisabled: true, dnssecOk: true }));
    const big = await c.resolve(ask('big.example', { checkingDisabled: true, dnssecOk: true }));
    for (const r of [plain, cd, both, big]) expect(r.kind).toBe('answer');
    const seen = (name: string) => up.received.filter((q) => q.name === name);
    const bits = (name: string) =>
      seen(name).map((q) => ({
        rd: (q.flags & 0x0100) !== 0,
        ad: (q.flags & 0x0020) !== 0,
        cd: (q.flags & 0x0010) !== 0,
        do: q.dnssecOk,
        protocol: q.protocol,
      }));
    expect(bits('plain.example')).toEqual([{ rd: true, ad: true, cd: false, do: false, protocol: 'udp' }]);
    expect(bits('cd.example')).toEqual([{ rd: true, ad: true, cd: true, do: false, protocol: 'udp' }]);
    expect(bits('both.example')).toEqual([{ rd: true, ad: true, cd: true, do: true, protocol: 'udp' }]);
    // The TCP retry of a truncated answer carries the same bits (RFC 7766 §5).
    expect(bits('big.example')).toEqual([
      { rd: true, ad: true, cd: true, do: true, protocol: 'udp' },
      { rd: true, ad: true, cd: true, do: true, protocol: 'tcp' },
    ]);
    expect(firstA(big)).toBe('192.0.2.20');
    expect(c.stats.tcpFallbacks).toBe(1);
  });

  it('writes every byte of the query: header counts, the question as given and a bare OPT (RFC 6891 §6.1.2)', async () => {
    const socket = dgram.createSocket('udp4');
    const got: Buffer[] = [];
    socket.on('message', (msg, rinfo) => {
      got.push(Buffer.from(msg));
      const answer = Buffer.from(msg);
      answer[2] = 0x81; // QR, RD
      answer[3] = 0x80; // RA, NOERROR
      socket.send(answer, rinfo.port, rinfo.address);
    });
    await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
    try {
      const c = client([socket.address().port], { minRtoMs: 500, maxRtoMs: 500 });
      // The query's buffer comes from node's shared pool: dirty the pool's bytes first.
      for (let i = 0; i < 64; i++) Buffer.allocUnsafe(120).fill(0xa5);
      const question = wireQuestion('bytes.example', 'AAAA');
      for (const bits of [{}, { dnssecOk: true, checkingDisabled: true }]) {
        const res = await c.resolve({ question, dnssecOk: false, checkingDisabled: false, ...bits });
        expect(res.kind).toBe('answer');
      }
      expect(got).toHaveLength(2);
      const expected = (flags: number, doBit: number) =>
        Buffer.concat([
          Buffer.from([0, 0, flags >> 8, flags & 0xff, 0, 1, 0, 0, 0, 0, 0, 1]),
          question,
          Buffer.from([0, 0, 41, 0x04, 0xd0, 0, 0, doBit, 0, 0, 0]),
        ]);
      // The ids are random: compare from byte 2 on.
      expect(got[0]!.subarray(2).toString('hex')).toBe(expected(0x0120, 0).subarray(2).toString('hex'));
      expect(got[1]!.subarray(2).toString('hex')).toBe(expected(0x0130, 0x80).subarray(2).toString('hex'));
    } finally {
      await new Promise<void>((r) => socket.close(() => r()));
    }
  });

  it('returns the upstream message byte for byte, AD as the upstream set it', async () => {
    let sent: Buffer | undefined;
    const up = await scriptedUpstream((s, q, r) => {
      sent = reply(q, '192.0.2.1', {
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | dnsPacket.AUTHENTIC_DATA,
      });
      s.send(sent, r.port, r.address);
    });
    cleanups.push(up.close);
    const c = client([up.port]);
    const res = await c.resolve(ask('signed.example'));
    expect(res.kind === 'answer' && res.message.equals(sent!)).toBe(true);
    expect(res.kind === 'answer' && res.rcode).toBe(0);
    expect((decoded(res)?.flags ?? 0) & dnsPacket.AUTHENTIC_DATA).not.toBe(0);
  });
});

describe('UpstreamClient health', () => {
  let a: FakeUpstream;
  let b: FakeUpstream;

  async function two(opts: UpstreamOptions = {}): Promise<UpstreamClient> {
    a = await fake();
    b = await fake();
    // RTOs long enough that a loaded machine causes no retransmission the counts below do not expect.
    return client([a.port, b.port], { maxFailures: 1, minRtoMs: 500, maxRtoMs: 500, ...opts });
  }

  it('asks the healthy upstreams round-robin', async () => {
    const c = await two();
    for (let i = 0; i < 4; i++) expect(firstA(await c.resolve(ask(`rr${i}.example`)))).toBe('192.0.2.10');
    expect([a.total(), b.total()]).toEqual([2, 2]);
    expect(c.stats.retransmissions).toBe(0);
  });

  it('returns an upstream SERVFAIL at once, without asking the other, and keeps that upstream healthy', async () => {
    const c = await two();
    a.setServfail(true);
    const first = await c.resolve(ask('sf.example')); // round-robin starts at a
    expect(first.kind === 'answer' && first.rcode).toBe(2);
    expect(((decoded(first)?.flags ?? 0) & 0xf) === 2).toBe(true);
    expect(a.queries.get('sf.example')).toBe(1);
    expect(b.total()).toBe(0);
    expect(c.stats.servfails).toBe(1);
    expect(c.stats.retransmissions).toBe(0);
    // More queries: each asks one upstream only, and a stays healthy (maxFailures is 1).
    for (let i = 0; i < 4; i++) await c.resolve(ask(`sf${i}.example`));
    expect(a.total() + b.total()).toBe(5);
    expect(c.health().map((h) => [h.healthy, h.consecutiveFailures])).toEqual([
      [true, 0],
      [true, 0],
    ]);
  });

  it('moves a query on to the next upstream when one is dead, and marks the dead one down', async () => {
    const c = await two({ minRtoMs: 150, maxRtoMs: 150 });
    a.setDown(true);
    expect(firstA(await c.resolve(ask('one.example')))).toBe('192.0.2.10'); // a first, then b
    expect(c.stats.failovers).toBe(1);
    expect(c.health().map((h) => h.healthy)).toEqual([false, true]);
    expect(c.health()[0]?.consecutiveFailures).toBe(1);
    for (let i = 0; i < 3; i++) expect(firstA(await c.resolve(ask(`next${i}.example`)))).toBe('192.0.2.10');
    expect(b.total()).toBe(4); // every later query went to b first, and b answered
    expect(c.stats.retransmissions).toBe(1);
  });

  it('moves on at once when an upstream port refuses (ICMP port unreachable)', async () => {
    b = await fake();
    const c = client([await closedPort(), b.port], { timeoutMs: 5000, minRtoMs: 2000, maxRtoMs: 2000 });
    const t0 = Date.now();
    expect(firstA(await c.resolve(ask('r.example')))).toBe('192.0.2.10');
    expect(Date.now() - t0).toBeLessThan(1500); // before the 2 s RTO: the refusal moved it on, not a speed assertion
    expect(c.stats.errors).toBeGreaterThanOrEqual(1);
    expect(c.health().map((h) => h.healthy)).toEqual([true, true]); // maxFailures 2 by default: one failure so far
    expect(c.health()[0]?.consecutiveFailures).toBe(1);
  });

  it('reports network when an upstream refused and the other stayed silent', async () => {
    b = await fake();
    b.setDown(true);
    const c = client([await closedPort(), b.port], { timeoutMs: 300 });
    expect(await c.resolve(ask('mixed.example'))).toEqual({ kind: 'failure', reason: 'network' });
  });

  it('probes a down upstream and takes it back when it answers again', async () => {
    const c = await two({ probeIntervalMs: 50 });
    a.setDown(true);
    await c.resolve(ask('x.example'));
    expect(c.health()[0]?.healthy).toBe(false);
    a.setDown(false);
    await within(2000, () => c.health()[0]?.healthy === true);
    expect(c.stats.probes).toBeGreaterThanOrEqual(1);
    expect(c.stats.recoveries).toBe(1);
    expect(a.queries.get('.')).toBeGreaterThanOrEqual(1); // the probe: `. NS`
    await c.resolve(ask('back1.example'));
    await c.resolve(ask('back2.example'));
    expect((a.queries.get('back1.example') ?? 0) + (a.queries.get('back2.example') ?? 0)).toBe(1);
  });
});
