import dgram from 'node:dgram';
import dnsPacket, { type Packet } from 'dns-packet';
import { afterEach, describe, expect, it } from 'vitest';
import { checkAnswer, UpstreamClient } from '../src/upstream/client.ts';
import { type FakeUpstream, startFakeUpstream } from './helpers/fake-upstream.ts';

/** The wire question section (qname, qtype, qclass) of `name type IN`. */
function wireQuestion(name: string, type = 'A'): Buffer {
  return dnsPacket.encode({ type: 'query', id: 0, questions: [{ name, type: type as 'A' }] }).subarray(12);
}

function firstA(p: Packet | null): string | undefined {
  return (p?.answers?.[0] as { data?: string } | undefined)?.data;
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

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('UpstreamClient anti-spoofing (RFC 5452)', () => {
  it('sends each query from a fresh random source port with a random id', async () => {
    const up = await scriptedUpstream((s, q, r) => s.send(reply(q, '192.0.2.1'), r.port, r.address));
    const client = new UpstreamClient([{ host: '127.0.0.1', port: up.port }], { timeoutMs: 1000 });
    cleanups.push(up.close, () => client.close());
    for (let i = 0; i < 30; i++) {
      expect(firstA(await client.resolve({ question: wireQuestion(`q${i}.example`), dnssecOk: false }))).toBe(
        '192.0.2.1',
      );
    }
    expect(new Set(up.seen.map((s) => s.port)).size).toBeGreaterThanOrEqual(28);
    expect(new Set(up.seen.map((s) => s.id)).size).toBeGreaterThanOrEqual(28);
  });

  it('ignores answers from another port, with another id or for another question', async () => {
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
      setTimeout(() => s.send(reply(q, '192.0.2.1'), r.port, r.address), 50);
    });
    const client = new UpstreamClient([{ host: '127.0.0.1', port: up.port }], { timeoutMs: 1000 });
    cleanups.push(
      up.close,
      () => client.close(),
      () => new Promise<void>((r) => spoofer.close(() => r())),
    );
    const res = await client.resolve({ question: wireQuestion('victim.example'), dnssecOk: false });
    expect(firstA(res)).toBe('192.0.2.1');
    expect(client.stats.mismatched).toBeGreaterThanOrEqual(2);
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
});

describe('UpstreamClient health', () => {
  let a: FakeUpstream;
  let b: FakeUpstream;

  async function two(opts: { probeIntervalMs?: number } = {}): Promise<UpstreamClient> {
    a = await startFakeUpstream();
    b = await startFakeUpstream();
    const client = new UpstreamClient(
      [
        { host: '127.0.0.1', port: a.port },
        { host: '127.0.0.1', port: b.port },
      ],
      { timeoutMs: 150, maxFailures: 1, probeIntervalMs: opts.probeIntervalMs ?? 60_000 },
    );
    cleanups.push(
      () => a.close(),
      () => b.close(),
      () => client.close(),
    );
    return client;
  }

  it('fails over to the next upstream on timeout, then prefers the healthy one', async () => {
    const client = await two();
    a.setDown(true);
    const first = await client.resolve({ question: wireQuestion('one.example'), dnssecOk: false });
    expect(firstA(first)).toBe('192.0.2.10');
    expect(client.stats.timeouts).toBe(1);
    expect(client.stats.failovers).toBe(1);
    expect(client.health().map((h) => h.healthy)).toEqual([false, true]);
    await client.resolve({ question: wireQuestion('two.example'), dnssecOk: false });
    expect(client.stats.timeouts).toBe(1); // the down upstream was not asked first
    expect(b.queries.get('two.example')).toBe(1);
  });

  it('fails over on SERVFAIL, and returns SERVFAIL only when every upstream says so', async () => {
    const client = await two();
    a.setServfail(true);
    expect(firstA(await client.resolve({ question: wireQuestion('sf.example'), dnssecOk: false }))).toBe('192.0.2.10');
    expect(client.stats.servfails).toBe(1);
    expect(a.queries.get('sf.example')).toBe(1);
    b.setServfail(true);
    const both = await client.resolve({ question: wireQuestion('sf2.example'), dnssecOk: false });
    expect((both?.flags ?? 0) & 0xf).toBe(2);
    a.setDown(true);
    b.setDown(true);
    expect(await client.resolve({ question: wireQuestion('none.example'), dnssecOk: false })).toBeNull();
  });

  it('fails over at once when the upstream port refuses (ICMP port unreachable)', async () => {
    const closed = dgram.createSocket('udp4');
    await new Promise<void>((r) => closed.bind(0, '127.0.0.1', () => r()));
    const deadPort = closed.address().port;
    await new Promise<void>((r) => closed.close(() => r()));
    b = await startFakeUpstream();
    const client = new UpstreamClient(
      [
        { host: '127.0.0.1', port: deadPort },
        { host: '127.0.0.1', port: b.port },
      ],
      { timeoutMs: 5000 },
    );
    cleanups.push(
      () => b.close(),
      () => client.close(),
    );
    const t0 = Date.now();
    expect(firstA(await client.resolve({ question: wireQuestion('r.example'), dnssecOk: false }))).toBe('192.0.2.10');
    expect(Date.now() - t0).toBeLessThan(4000); // well before the 5 s timeout: not a speed assertion
    expect(client.stats.errors).toBeGreaterThanOrEqual(1);
  });

  it('probes a down upstream and takes it back when it answers again', async () => {
    const client = await two({ probeIntervalMs: 50 });
    a.setDown(true);
    await client.resolve({ question: wireQuestion('x.example'), dnssecOk: false });
    expect(client.health()[0]?.healthy).toBe(false);
    a.setDown(false);
    await within(2000, () => client.health()[0]?.healthy === true);
    expect(client.stats.probes).toBeGreaterThanOrEqual(1);
    expect(client.stats.recoveries).toBe(1);
    expect(a.queries.get('.')).toBeGreaterThanOrEqual(1); // the probe: `. NS`
    await client.resolve({ question: wireQuestion('back.example'), dnssecOk: false });
    expect(a.queries.get('back.example')).toBe(1);
  });

  it('falls back to TCP at the same upstream when the UDP answer is truncated', async () => {
    const client = await two();
    const res = await client.resolve({ question: wireQuestion('big.example'), dnssecOk: true });
    expect(firstA(res)).toBe('192.0.2.20');
    expect(client.stats.tcpFallbacks).toBe(1);
  });
});
