import dnsPacket, { type Packet } from 'dns-packet';
import { describe, expect, it } from 'vitest';
import {
  allocResponse,
  batchReceiveTime,
  decodeQuery,
  emptyResponse,
  fitForTransport,
  responseSlot,
} from '../src/dns/message.ts';
import { parseQuery, questionEnd, skipName } from '../src/dns/wire.ts';
import { blockedAnswer, blockedTemplates } from '../src/pipeline/answers.ts';
import type { QueryContext } from '../src/request.ts';

const OPT = (udpPayloadSize: number, flags = 0, options: unknown[] = []) =>
  ({ type: 'OPT', name: '.', udpPayloadSize, flags, options }) as never;

function query(name: string, type: string, extra: Partial<Packet> = {}): Buffer {
  return dnsPacket.encode({
    id: 0xbeef,
    type: 'query',
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type: type as 'A', class: 'IN' }],
    ...extra,
  });
}

/** dns-packet's view of a query: the oracle. */
function oracle(raw: Buffer) {
  const p = dnsPacket.decode(raw);
  const opt = (p.additionals ?? []).find((rr) => rr.type === 'OPT') as
    | { udpPayloadSize: number; flags: number; options?: { code: number; data?: Buffer }[] }
    | undefined;
  const option = (code: number) => opt?.options?.find((o) => o.code === code)?.data?.toString('utf8') ?? null;
  return {
    id: p.id,
    name: p.questions![0]!.name,
    qtype: raw.readUInt16BE(questionEnd(raw) - 4),
    edns: opt
      ? {
          udpSize: Math.max(512, opt.udpPayloadSize),
          dnssecOk: (opt.flags & dnsPacket.DNSSEC_OK) !== 0,
          deviceKey: option(65073),
          user: option(65074),
        }
      : null,
  };
}

/** A deterministic PRNG (mulberry32), so fuzz failures reproduce. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CASES: [string, string, Partial<Packet>][] = [
  ['example.com', 'A', {}],
  ['WwW.ExAmple.COM', 'AAAA', { additionals: [OPT(4096, dnsPacket.DNSSEC_OK)] }],
  ['a.b.c.d.e.f.example', 'MX', { additionals: [OPT(1232)] }],
  ['.', 'NS', {}],
  ['xn--bcher-kva.example', 'TXT', { additionals: [OPT(100)] }],
  ['bücher.example', 'A', {}],
  [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`, 'A', {}],
  ['svc.example', 'HTTPS', { additionals: [OPT(1400, 0, [{ code: 10, data: Buffer.alloc(8, 7) }])] }],
  [
    'agent.example',
    'A',
    {
      additionals: [
        OPT(1232, 0, [
          { code: 10, data: Buffer.alloc(8, 7) },
          { code: 65073, data: Buffer.from('dev_Key-123') },
          { code: 65074, data: Buffer.from('zoë') },
        ]),
      ],
    },
  ],
];

describe('parseQuery against dns-packet', () => {
  it.each(CASES)('reads %s %s like dns-packet does', (name, type, extra) => {
    const raw = query(name, type, extra);
    const r = parseQuery(raw);
    expect(r.kind).toBe('ok');
    if (r.kind !== 'ok') return;
    const o = oracle(raw);
    expect({ id: r.query.id, name: r.query.name, qtype: r.query.qtype, edns: r.query.edns }).toEqual(o);
    expect(r.query.qclass).toBe(1);
    expect(r.query.questionEnd).toBe(questionEnd(raw));
    expect(r.query.flags & dnsPacket.RECURSION_DESIRED).toBe(dnsPacket.RECURSION_DESIRED);
    // The normalised qname: capitals lowered, and the very same string when there are none.
    expect(r.query.qname).toBe(o.name.replace(/[A-Z]/g, (c) => c.toLowerCase()));
    if (!/[A-Z]/.test(o.name)) expect(Object.is(r.query.qname, r.query.name)).toBe(true);
  });

  it('lowers only ASCII capitals (RFC 4343 §3), UTF-8 labels included', () => {
    for (const [name, qname] of [
      ['WwW.Example.COM', 'www.example.com'],
      ['Bücher.EXAMPLE', 'bücher.example'],
      ['bÜcher.example', 'bÜcher.example'],
      ['AZ@[`{.example', 'az@[`{.example'],
    ]) {
      const r = parseQuery(query(name!, 'A'));
      if (r.kind !== 'ok') throw new Error(`bad query ${name}`);
      expect([r.query.name, r.query.qname]).toEqual([name, qname]);
    }
  });

  it('skips compressed names in other records, and refuses a pointer inside the qname', () => {
    // Question, then an additional A record owned by a pointer to the qname, then OPT.
    const base = query('ptr.example', 'A');
    const rr = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1]);
    const opt = Buffer.from([0, 0, 41, 0x10, 0, 0, 0, 0x80, 0, 0, 0]);
    const raw = Buffer.concat([base, rr, opt]);
    raw.writeUInt16BE(2, 10);
    const r = parseQuery(raw);
    expect(r.kind).toBe('ok');
    if (r.kind === 'ok') expect(r.query.edns).toEqual(oracle(raw).edns);
    expect(skipName(raw, base.length)).toBe(base.length + 2);

    const pointerQname = Buffer.from(base);
    pointerQname.writeUInt16BE(0xc000, 12); // qname is a pointer (into the header)
    expect(parseQuery(pointerQname.subarray(0, 18)).kind).toBe('formerr');
  });

  it('reads the device key (65073) and user (65074) options, and ignores ill-formed ones (docs/agent.md)', () => {
    const edns = (options: { code: number; data: Buffer }[]) => {
      const r = parseQuery(query('example.com', 'A', { additionals: [OPT(1232, 0, options)] }));
      return r.kind === 'ok' ? r.query.edns : null;
    };
    expect(edns([{ code: 65073, data: Buffer.from('Key_1-x') }])).toMatchObject({ deviceKey: 'Key_1-x', user: null });
    // The first option of a code counts.
    expect(
      edns([
        { code: 65073, data: Buffer.from('first') },
        { code: 65073, data: Buffer.from('second') },
      ])?.deviceKey,
    ).toBe('first');
    // Not a key: other characters, empty, too long.
    expect(edns([{ code: 65073, data: Buffer.from('bad key') }])?.deviceKey).toBeNull();
    expect(edns([{ code: 65073, data: Buffer.alloc(0) }])?.deviceKey).toBeNull();
    expect(edns([{ code: 65073, data: Buffer.alloc(129, 0x61) }])?.deviceKey).toBeNull();
    expect(edns([{ code: 65073, data: Buffer.alloc(128, 0x61) }])?.deviceKey).toBe('a'.repeat(128));
    // A user name is UTF-8 without control characters or invalid bytes.
    expect(edns([{ code: 65074, data: Buffer.from('José Núñez') }])?.user).toBe('José Núñez');
    expect(edns([{ code: 65074, data: Buffer.from('a\nb') }])?.user).toBeNull();
    expect(edns([{ code: 65074, data: Buffer.from([0xff, 0x41]) }])?.user).toBeNull();
    expect(edns([{ code: 65074, data: Buffer.alloc(129, 0x61) }])?.user).toBeNull();
  });

  it('answers FORMERR / NOTIMP / drop for what cannot be a usable query', () => {
    const ok = query('example.com', 'A', { additionals: [OPT(1232)] });
    expect(parseQuery(Buffer.alloc(1)).kind).toBe('drop');
    for (let n = 0; n < 12; n++) expect(parseQuery(ok.subarray(0, n)).kind, `${n} bytes`).toBe('drop');
    const v1 = Buffer.from(ok);
    v1[v1.length - 5] = 1; // the OPT's VERSION byte (RFC 6891 §6.1.3)
    expect(parseQuery(v1)).toMatchObject({ kind: 'badvers', query: { qtype: 1, edns: { udpSize: 1232 } } });
    const response = Buffer.from(ok);
    response[2] = response[2]! | 0x80;
    expect(parseQuery(response).kind).toBe('drop');
    const notify = Buffer.from(ok);
    notify[2] = (notify[2]! & 0x87) | (4 << 3);
    expect(parseQuery(notify).kind).toBe('notimp');
    const noQuestion = Buffer.from(ok.subarray(0, 12));
    noQuestion.writeUInt16BE(0, 4);
    noQuestion.writeUInt16BE(0, 10);
    expect(parseQuery(noQuestion).kind).toBe('formerr');
    const two = Buffer.concat([ok.subarray(0, questionEnd(ok)), ok.subarray(12, questionEnd(ok))]);
    two.writeUInt16BE(2, 4);
    two.writeUInt16BE(0, 10);
    expect(parseQuery(two).kind).toBe('formerr');
    const badLabel = Buffer.from(ok);
    badLabel[12] = 0x41; // reserved label type 01
    expect(parseQuery(badLabel).kind).toBe('formerr');
    const longName = query(`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`, 'A');
    longName[12 + 64 * 3] = 62; // 254 bytes of labels plus one more label byte claimed…
    const tooLong = Buffer.concat([longName.subarray(0, 12 + 64 * 3), Buffer.from([63]), Buffer.alloc(63, 0x65)]);
    expect(parseQuery(Buffer.concat([tooLong, Buffer.from([0, 0, 1, 0, 1])])).kind).toBe('formerr');
    const badOption = query('example.com', 'A', { additionals: [OPT(1232, 0, [{ code: 10, data: Buffer.alloc(8) }])] });
    badOption.writeUInt16BE(200, badOption.length - 10); // option length past its RDATA
    expect(parseQuery(badOption).kind).toBe('formerr');
  });

  it('refuses every truncation of a valid query, as dns-packet does', () => {
    const raw = query('trunc.example', 'AAAA', { additionals: [OPT(1232, dnsPacket.DNSSEC_OK)] });
    for (let n = 0; n < raw.length; n++) {
      const r = parseQuery(raw.subarray(0, n));
      expect(r.kind, `prefix ${n}`).not.toBe('ok');
      if (n >= 2) expect(() => dnsPacket.decode(raw.subarray(0, n)), `prefix ${n}`).toThrow();
    }
  });

  // Corrupts the header and the question, the parts parseQuery decodes (other records are only
  // bounds-checked, so dns-packet's per-type RDATA checks are not the oracle there).
  it('is never laxer than dns-packet on corrupted headers and questions (fuzz)', () => {
    const rand = prng(5452);
    const seeds = CASES.map(([n, t, e]) => query(n, t, e));
    let accepted = 0;
    for (let i = 0; i < 5000; i++) {
      const raw = Buffer.from(seeds[i % seeds.length]!);
      const flips = 1 + Math.floor(rand() * 3);
      const end = questionEnd(raw);
      for (let f = 0; f < flips; f++) raw[2 + Math.floor(rand() * (end - 2))] = Math.floor(rand() * 256);
      raw[2] = raw[2]! & 0x7f; // keep it a query
      const r = parseQuery(raw);
      let decoded: Packet | null = null;
      try {
        decoded = dnsPacket.decode(raw);
      } catch {
        decoded = null;
      }
      if (r.kind !== 'ok') continue;
      accepted++;
      expect(decoded, `accepted what dns-packet refuses: ${raw.toString('hex')}`).not.toBeNull();
      expect(r.query.name).toBe(decoded!.questions![0]!.name);
    }
    expect(accepted).toBeGreaterThan(100);
  });
});

describe('receive times', () => {
  it('take the batch’s clock reading while the batched transport sets one, else read the clocks', () => {
    const raw = query('x.example', 'A');
    batchReceiveTime.wall = 1_763_800_000_000;
    batchReceiveTime.mono = 42.5;
    batchReceiveTime.set = true;
    try {
      const inBatch = decodeQuery(raw, '127.0.0.1', 'udp');
      if (inBatch.kind !== 'ok') throw new Error('bad query');
      expect(inBatch.request).toMatchObject({ receivedAt: 1_763_800_000_000, startedAt: 42.5 });
    } finally {
      batchReceiveTime.set = false;
    }
    const before = Date.now();
    const alone = decodeQuery(raw, '127.0.0.1', 'tcp');
    if (alone.kind !== 'ok') throw new Error('bad query');
    expect(alone.request.receivedAt).toBeGreaterThanOrEqual(before);
    expect(alone.request.receivedAt).toBeLessThanOrEqual(Date.now());
    expect(alone.request.startedAt).toBeGreaterThan(42.5);
  });
});

describe('wire answers', () => {
  function ctx(name: string, type: string, extra: Partial<Packet> = {}, protocol: 'udp' | 'tcp' = 'udp') {
    const r = decodeQuery(query(name, type, extra), '127.0.0.1', protocol);
    if (r.kind !== 'ok') throw new Error('bad query');
    return { request: r.request, identity: null, decision: null } satisfies QueryContext;
  }
  const templates = blockedTemplates({ ipv4: '192.0.2.99', ipv6: '2001:db8::99' });

  it('encodes blocked A / AAAA with the asker’s qname and TTL 60, and NODATA for other qtypes', () => {
    const a = dnsPacket.decode(blockedAnswer(ctx('Bad.Example', 'A', { additionals: [OPT(4096)] }), templates).wire);
    expect(a).toMatchObject({ id: 0xbeef, type: 'response', questions: [{ name: 'Bad.Example', type: 'A' }] });
    expect(a.answers).toEqual([
      { name: 'Bad.Example', type: 'A', class: 'IN', ttl: 60, flush: false, data: '192.0.2.99' },
    ]);
    expect(a.additionals).toMatchObject([{ type: 'OPT', udpPayloadSize: 1232 }]);
    const aaaa = dnsPacket.decode(blockedAnswer(ctx('bad.example', 'AAAA'), templates).wire);
    expect(aaaa.answers).toMatchObject([{ type: 'AAAA', ttl: 60, data: '2001:db8::99' }]);
    expect(aaaa.additionals).toEqual([]);
    const https = dnsPacket.decode(blockedAnswer(ctx('bad.example', 'HTTPS'), templates).wire);
    expect(https.answers).toEqual([]);
    expect((https.flags ?? 0) & 0xf).toBe(0);
  });

  it('copies RD and CD, sets RA, echoes DO, and truncates to the question with TC over UDP', () => {
    const raw = query('x.example', 'A', { flags: dnsPacket.RECURSION_DESIRED | dnsPacket.CHECKING_DISABLED });
    const r = decodeQuery(raw, '127.0.0.1', 'udp');
    if (r.kind !== 'ok') throw new Error('bad query');
    const d = dnsPacket.decode(emptyResponse(r.request, 2));
    expect(d.flags).toBe(dnsPacket.RECURSION_DESIRED | dnsPacket.CHECKING_DISABLED | dnsPacket.RECURSION_AVAILABLE | 2);
    const big = Buffer.concat([emptyResponse(r.request, 0), Buffer.alloc(600)]);
    const fitted = dnsPacket.decode(fitForTransport(big, r.request));
    expect((fitted.flags ?? 0) & dnsPacket.TRUNCATED_RESPONSE).toBe(dnsPacket.TRUNCATED_RESPONSE);
    expect(fitted.questions).toEqual([{ name: 'x.example', type: 'A', class: 'IN' }]);
    const tcp = ctx('x.example', 'A', {}, 'tcp').request;
    expect(fitForTransport(big, tcp)).toBe(big);
    const edns = ctx('x.example', 'A', { additionals: [OPT(4096, dnsPacket.DNSSEC_OK)] }).request;
    const withDo = dnsPacket.decode(emptyResponse(edns, 0));
    expect(withDo.additionals).toMatchObject([{ type: 'OPT', flags: dnsPacket.DNSSEC_OK }]);
  });

  it('writes a response in the offered slot once, and allocates when it does not fit or the slot is taken', () => {
    const request = ctx('x.example', 'A').request;
    const arena = Buffer.alloc(256, 0xee);
    const offer = (offset: number, capacity: number) => {
      responseSlot.arena = arena;
      responseSlot.offset = offset;
      responseSlot.capacity = capacity;
    };
    try {
      offer(64, 128);
      const first = allocResponse(request, 0, 0, 0, 0, 0, 4);
      expect(first.buffer).toBe(arena.buffer);
      expect(first.byteOffset).toBe(arena.byteOffset + 64);
      expect(first.length).toBe(request.questionEnd + 4);
      expect(dnsPacket.decode(first).questions).toEqual([{ name: 'x.example', type: 'A', class: 'IN' }]);
      expect(responseSlot.arena).toBeNull();
      // The slot is taken: a second response (a truncated replacement) gets its own memory.
      const second = allocResponse(request, 0, 0, 0, 0, 0, 0);
      expect(second.buffer).not.toBe(arena.buffer);
      expect(arena[63]).toBe(0xee);
      // Too long for the slot: allocated, and the slot is left for a response that fits.
      offer(0, 16);
      const long = allocResponse(request, 0, 0, 0, 0, 0, 4);
      expect(long.buffer).not.toBe(arena.buffer);
      expect(responseSlot.arena).toBe(arena);
    } finally {
      responseSlot.arena = null;
    }
  });
});
