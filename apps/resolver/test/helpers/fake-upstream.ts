import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket, { type Answer, type Packet } from 'dns-packet';

/**
 * A fake authoritative upstream on 127.0.0.1 (UDP and TCP on one random port), for tests:
 * - `nx.*` → NXDOMAIN with an SOA (TTL 300, MINIMUM 60);
 * - `big.*` → over UDP an empty TC=1 answer, over TCP `A 192.0.2.20` (forces TCP fallback);
 * - `many.*` → 40 A records (too large for a 512-byte UDP answer);
 * - `fail.*` → no answer at all (timeout);
 * - anything else: `A 192.0.2.10` / `AAAA 2001:db8::10` (TTL 300), other qtypes NODATA with SOA.
 * `setDown(true)` stops answering anything; `setServfail(true)` answers everything SERVFAIL;
 * `dropEvery(n)` loses every n-th UDP datagram that arrives (the 2nd, 4th, … for n = 2), as a lossy
 * path would, before it is counted or logged.
 * `queries` counts questions received, by qname (`.` for health probes); `received` logs each
 * query received, in order, with its header flags and DO bit.
 */
export interface FakeUpstream {
  readonly port: number;
  readonly queries: Map<string, number>;
  /** Every query received (UDP and TCP, not the dropped ones), in arrival order. */
  readonly received: ReceivedQuery[];
  total(): number;
  setDown(down: boolean): void;
  setServfail(servfail: boolean): void;
  /** Drop every n-th UDP datagram received from now on (counting from the next one); 0 drops none. */
  dropEvery(n: number): void;
  close(): Promise<void>;
}

/** One query as the fake upstream received it. */
export interface ReceivedQuery {
  /** qname, lower-cased (`.` for the root). */
  readonly name: string;
  readonly protocol: 'udp' | 'tcp';
  /** The 16-bit header flags word as received (RFC 1035 §4.1.1; AD 0x20 and CD 0x10: RFC 4035 §3.2). */
  readonly flags: number;
  /** The DO bit of the query's OPT record (RFC 3225 §3); false without EDNS(0). */
  readonly dnssecOk: boolean;
}

const SOA = (zone: string): Answer => ({
  name: zone,
  type: 'SOA',
  ttl: 300,
  class: 'IN',
  data: {
    mname: 'ns.test',
    rname: 'hostmaster.test',
    serial: 1,
    refresh: 3600,
    retry: 600,
    expire: 86400,
    minimum: 60,
  },
});

function answer(query: Packet, protocol: 'udp' | 'tcp', servfail = false): Packet | null {
  const q = query.questions![0]!;
  const name = q.name.toLowerCase();
  const base: Packet = {
    id: query.id ?? 0,
    type: 'response',
    flags: dnsPacket.AUTHORITATIVE_ANSWER | dnsPacket.RECURSION_DESIRED,
    questions: [q],
    answers: [],
    authorities: [],
    additionals: [],
  };
  if (name.startsWith('fail.')) return null;
  if (servfail) return { ...base, flags: (base.flags ?? 0) | 2 };
  if (name.startsWith('nx.')) return { ...base, flags: (base.flags ?? 0) | 3, authorities: [SOA('test')] };
  if (name.startsWith('big.')) {
    if (protocol === 'udp') return { ...base, flags: (base.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE };
    return { ...base, answers: [{ name: q.name, type: 'A', class: 'IN', ttl: 300, data: '192.0.2.20' }] };
  }
  if (name.startsWith('many.') && q.type === 'A') {
    const answers: Answer[] = [];
    for (let i = 1; i <= 40; i++)
      answers.push({ name: q.name, type: 'A', class: 'IN', ttl: 300, data: `198.51.100.${i}` });
    return { ...base, answers };
  }
  if (q.type === 'A')
    return { ...base, answers: [{ name: q.name, type: 'A', class: 'IN', ttl: 300, data: '192.0.2.10' }] };
  if (q.type === 'AAAA') {
    return { ...base, answers: [{ name: q.name, type: 'AAAA', class: 'IN', ttl: 300, data: '2001:db8::10' }] };
  }
  return { ...base, authorities: [SOA('test')] };
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const queries = new Map<string, number>();
  const received: ReceivedQuery[] = [];
  let down = false;
  let servfail = false;
  let dropEvery = 0;
  let datagrams = 0;
  const count = (p: Packet, raw: Buffer, protocol: 'udp' | 'tcp') => {
    const n = p.questions?.[0]?.name.toLowerCase() ?? '';
    queries.set(n, (queries.get(n) ?? 0) + 1);
    const opt = p.additionals?.find((rr) => rr.type === 'OPT') as { flags?: number } | undefined;
    received.push({
      name: n === '' ? '.' : n,
      protocol,
      flags: raw.readUInt16BE(2),
      dnssecOk: ((opt?.flags ?? 0) & dnsPacket.DNSSEC_OK) !== 0,
    });
  };
  const onMessage = (udp: dgram.Socket) => (msg: Buffer, rinfo: dgram.RemoteInfo) => {
    if (down) return;
    datagrams++;
    if (dropEvery > 0 && datagrams % dropEvery === 0) return;
    const query = dnsPacket.decode(msg);
    count(query, msg, 'udp');
    const res = answer(query, 'udp', servfail);
    if (res) udp.send(dnsPacket.encode(res), rinfo.port, rinfo.address);
  };
  const tcp = net.createServer((socket) => {
    let buf = Buffer.alloc(0);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= buf.readUInt16BE(0) + 2) {
        const len = buf.readUInt16BE(0);
        const raw = buf.subarray(2, 2 + len);
        const query = dnsPacket.decode(raw);
        buf = buf.subarray(2 + len);
        if (down) continue;
        count(query, raw, 'tcp');
        const res = answer(query, 'tcp', servfail);
        if (!res) continue;
        const wire = dnsPacket.encode(res);
        const frame = Buffer.alloc(wire.length + 2);
        frame.writeUInt16BE(wire.length, 0);
        wire.copy(frame, 2);
        socket.write(frame);
      }
    });
  });
  // UDP picks a free port, TCP takes the same number; that number may be some TCP client's
  // ephemeral port at that moment (other tests run in parallel): then try another.
  let udp: dgram.Socket | undefined;
  let port = 0;
  for (let attempt = 1; udp === undefined; attempt++) {
    const socket = dgram.createSocket('udp4');
    socket.on('message', onMessage(socket));
    await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
    port = socket.address().port;
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, '127.0.0.1', () => {
          tcp.off('error', reject);
          resolve();
        });
      });
      udp = socket;
    } catch (err) {
      await new Promise<void>((r) => socket.close(() => r()));
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 10) throw err;
    }
  }
  const boundUdp = udp;
  return {
    port,
    queries,
    received,
    total: () => [...queries.values()].reduce((a, b) => a + b, 0),
    setDown: (d) => {
      down = d;
    },
    setServfail: (v) => {
      servfail = v;
    },
    dropEvery: (n) => {
      dropEvery = n;
      datagrams = 0;
    },
    close: async () => {
      await new Promise<void>((r) => boundUdp.close(() => r()));
      await new Promise<void>((r) => tcp.close(() => r()));
    },
  };
}
