import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket, { type Answer, type Packet } from 'dns-packet';

/**
 * A scripted recursive resolver on 127.0.0.1 (UDP and TCP on one port) that answers from a table
 * of records the way a real recursive resolver does: it follows CNAME chains and synthesizes the
 * CNAME of a DNAME (RFC 6672 §2.2), returning the whole chain in the answer section, then the
 * final name's records of the asked type; a name with no records is NXDOMAIN, a name with other
 * types NODATA, both with the zone's SOA. Header bits: AD when the query set AD or DO (RFC 6840
 * §5.7), as a validating resolver would for a signed zone; names under `bogus.` answer SERVFAIL
 * unless the query set CD (a validation failure, RFC 4035 §3.2.2). Each query's header flags and
 * DO bit are recorded.
 */
export interface ChainUpstream {
  readonly port: number;
  /** Header flags and DO bit of every query received, in order. */
  readonly received: { name: string; flags: number; dnssecOk: boolean }[];
  /** Extra Extended DNS Error options (RFC 8914) to put in the OPT of answers to `name`. */
  setEde(name: string, infoCode: number, text: string): void;
  close(): Promise<void>;
}

/** A record of the table: owner, type, data as dns-packet encodes it (`UNKNOWN_65` takes a Buffer). */
export type TableRecord = Answer;

/** The HTTPS record data (RFC 9460 §2.2) of priority `priority` and target `target`, no parameters. */
export function httpsRdata(priority: number, target: string): Buffer {
  const name =
    target === '.'
      ? Buffer.from([0])
      : Buffer.concat([
          ...target.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'latin1')])),
          Buffer.from([0]),
        ]);
  const out = Buffer.alloc(2 + name.length);
  out.writeUInt16BE(priority, 0);
  name.copy(out, 2);
  return out;
}

const lower = (s: string) => s.toLowerCase().replace(/\.$/, '');

/** Starts the scripted resolver over `records`; `soaZone` owns the SOA of negative answers. */
export async function startChainUpstream(records: readonly TableRecord[], soaZone = 'test'): Promise<ChainUpstream> {
  const received: ChainUpstream['received'] = [];
  const ede = new Map<string, { code: number; data: Buffer }>();
  const soa: Answer = {
    name: soaZone,
    type: 'SOA',
    ttl: 300,
    class: 'IN',
    data: {
      mname: `ns.${soaZone}`,
      rname: `hostmaster.${soaZone}`,
      serial: 1,
      refresh: 3600,
      retry: 600,
      expire: 86400,
      minimum: 60,
    },
  };

  const answer = (query: Packet): Packet => {
    const q = query.questions![0]!;
    const flags = query.flags ?? 0;
    const opt = query.additionals?.find((a) => a.type === 'OPT') as { flags?: number } | undefined;
    const dnssecOk = ((opt?.flags ?? 0) & dnsPacket.DNSSEC_OK) !== 0;
    received.push({ name: lower(q.name), flags, dnssecOk });
    const base: Packet = {
      id: query.id ?? 0,
      type: 'response',
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
      questions: [q],
      answers: [],
      authorities: [],
      additionals: [],
    };
    const extraEde = ede.get(lower(q.name));
    if (opt) {
      base.additionals!.push({
        type: 'OPT',
        name: '.',
        udpPayloadSize: 1232,
        flags: dnssecOk ? dnsPacket.DNSSEC_OK : 0,
        options: extraEde ? [extraEde] : [],
      } as never);
    }
    if (lower(q.name).endsWith('bogus') && (flags & dnsPacket.CHECKING_DISABLED) === 0) {
      return { ...base, flags: (base.flags ?? 0) | 2 };
    }
    const ad = (flags & dnsPacket.AUTHENTIC_DATA) !== 0 || dnssecOk ? dnsPacket.AUTHENTIC_DATA : 0;
    let name = lower(q.name);
    const chain: Answer[] = [];
    for (let hops = 0; hops < 16; hops++) {
      const own = records.filter((r) => lower(r.name) === name);
      const cname = own.find((r) => r.type === 'CNAME');
      if (cname && q.type !== 'CNAME') {
        chain.push({ ...cname, name: chain.length === 0 ? q.name : name } as Answer);
        name = lower((cname as { data: string }).data);
        continue;
      }
      const dname = records.find((r) => r.type === 'DNAME' && name.endsWith(`.${lower(r.name)}`));
      if (dname && own.length === 0) {
        const target = `${name.slice(0, -lower(dname.name).length)}${lower((dname as { data: string }).data)}`;
        chain.push(dname, {
          name: chain.length === 0 ? q.name : name,
          type: 'CNAME',
          class: 'IN',
          ttl: 300,
          data: target,
        });
        name = target;
        continue;
      }
      const matching = own.filter((r) => r.type === q.type);
      if (matching.length > 0)
        return {
          ...base,
          flags: (base.flags ?? 0) | ad,
          answers: [...chain, ...matching.map((r) => ({ ...r, name: chain.length === 0 ? q.name : r.name }) as Answer)],
        };
      const known = own.length > 0 || records.some((r) => lower(r.name).endsWith(`.${name}`));
      return {
        ...base,
        flags: (base.flags ?? 0) | ad | (known ? 0 : 3),
        answers: chain,
        authorities: [soa],
      };
    }
    return { ...base, flags: (base.flags ?? 0) | 2 };
  };

  const onMessage = (udp: dgram.Socket) => (msg: Buffer, rinfo: dgram.RemoteInfo) => {
    let query: Packet;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return;
    }
    udp.send(dnsPacket.encode(answer(query)), rinfo.port, rinfo.address);
  };
  const tcp = net.createServer((socket) => {
    let buf = Buffer.alloc(0);
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const len = buf.readUInt16BE(0);
        const msg = buf.subarray(2, 2 + len);
        buf = buf.subarray(2 + len);
        const out = dnsPacket.encode(answer(dnsPacket.decode(msg)));
        const frame = Buffer.alloc(2 + out.length);
        frame.writeUInt16BE(out.length, 0);
        out.copy(frame, 2);
        socket.write(frame);
      }
    });
  });
  // UDP picks a free port, TCP takes the same number; that number may be some TCP client's
  // ephemeral port at that moment (other tests run in parallel): then try another.
  let bound: dgram.Socket | undefined;
  let port = 0;
  for (let attempt = 1; bound === undefined; attempt++) {
    const socket = dgram.createSocket('udp4');
    socket.on('message', onMessage(socket));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    port = socket.address().port;
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, '127.0.0.1', () => {
          tcp.off('error', reject);
          resolve();
        });
      });
      bound = socket;
    } catch (err) {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 10) throw err;
    }
  }
  const udp = bound;
  return {
    port,
    received,
    setEde: (name, infoCode, text) => {
      const data = Buffer.concat([Buffer.from([infoCode >> 8, infoCode & 0xff]), Buffer.from(text, 'utf8')]);
      ede.set(lower(name), { code: 15, data });
    },
    close: async () => {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}
