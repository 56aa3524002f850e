import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import { promisify } from 'node:util';
import dnsPacket from 'dns-packet';

const run = promisify(execFile);

/** A loopback authoritative stand-in for the internet's resolvers: every name has the same A/AAAA. */
export interface FakeUpstream {
  port: number;
  /** The A answer it gives every name. */
  ipv4: string;
  /** Names it was asked, in order. */
  asked: string[];
  close(): Promise<void>;
}

/**
 * Starts an upstream on 127.0.0.1 (UDP and TCP, same port) that answers every A with `ipv4` and
 * every AAAA with `ipv6`, TTL 300, NODATA for other types.
 */
export async function startFakeUpstream(ipv4 = '192.0.2.80', ipv6 = '2001:db8::80'): Promise<FakeUpstream> {
  const asked: string[] = [];
  const answer = (query: Buffer): Buffer => {
    const q = dnsPacket.decode(query);
    const question = q.questions?.[0];
    if (question) asked.push(question.name);
    const answers =
      question?.type === 'A'
        ? [{ type: 'A' as const, name: question.name, ttl: 300, data: ipv4 }]
        : question?.type === 'AAAA'
          ? [{ type: 'AAAA' as const, name: question.name, ttl: 300, data: ipv6 }]
          : [];
    return dnsPacket.encode({
      type: 'response',
      id: q.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
      questions: q.questions,
      answers,
    });
  };
  const tcp = net.createServer((socket) => {
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const len = buf.readUInt16BE(0);
        const reply = answer(buf.subarray(2, 2 + len));
        buf = buf.subarray(2 + len);
        const framed = Buffer.alloc(2 + reply.length);
        framed.writeUInt16BE(reply.length, 0);
        reply.copy(framed, 2);
        socket.write(framed);
      }
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const port = (tcp.address() as net.AddressInfo).port;
  const udp = dgram.createSocket('udp4');
  udp.on('message', (msg, rinfo) => {
    try {
      udp.send(answer(msg), rinfo.port, rinfo.address);
    } catch {
      // A malformed test query gets no answer, as from a real server that drops it.
    }
  });
  await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', resolve));
  return {
    port,
    ipv4,
    asked,
    close: async () => {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}

/** What dig printed, parsed: the RCODE (`status:`) and the answer section's records. */
export interface DigResult {
  status: string;
  answers: Array<{ name: string; ttl: number; type: string; data: string }>;
  raw: string;
}

/**
 * Runs `dig @server -p port [args] name [type]` and parses its output.
 * @param extra extra dig arguments, e.g. `['-b', '127.0.0.2']` or `['+tcp']`
 */
export async function dig(port: number, name: string, type = 'A', extra: string[] = []): Promise<DigResult> {
  const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(port), '+tries=1', '+time=3', ...extra, name, type]);
  const status = /status: ([A-Z]+)/.exec(stdout)?.[1] ?? 'NO-ANSWER';
  const answers: DigResult['answers'] = [];
  const section = stdout.split(';; ANSWER SECTION:\n')[1]?.split('\n\n')[0] ?? '';
  for (const line of section.split('\n')) {
    const [rname, ttl, , rtype, ...data] = line.trim().split(/\s+/);
    if (rname && ttl && rtype) answers.push({ name: rname, ttl: Number(ttl), type: rtype, data: data.join(' ') });
  }
  return { status, answers, raw: stdout };
}

/**
 * A port free on 127.0.0.1 for both TCP and UDP at the time of asking, drawn from 20000–31999, below
 * the kernel's ephemeral range (`net.ipv4.ip_local_port_range`, 32768–60999 by default).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    // Below Linux's ephemeral range (32768–60999 by default): an outgoing connection's local port or
    // another listen(0) is never handed one of these, so the port stays free until cordon binds it
    // (a port from listen(0), freed, was once taken in between: EADDRINUSE at cordon's start).
    const port = 20_000 + randomInt(12_000);
    const server = net.createServer();
    const tcp = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (tcp) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (!tcp) continue;
    const udp = dgram.createSocket('udp4');
    const ok = await new Promise<boolean>((resolve) => {
      udp.once('error', () => resolve(false));
      udp.bind(port, '127.0.0.1', () => resolve(true));
    });
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    if (ok) return port;
  }
}

/**
 * Runs `kdig @127.0.0.1 -p port [args] name type` (Knot's dig) and returns the RCODE and answer data.
 * @param extra extra kdig arguments, e.g. `['+tcp']`
 */
export async function kdig(
  port: number,
  name: string,
  type = 'A',
  extra: string[] = [],
): Promise<{ status: string; data: string[] }> {
  const { stdout } = await run('kdig', [
    `@127.0.0.1`,
    '-p',
    String(port),
    '+timeout=3',
    '+retry=0',
    ...extra,
    name,
    type,
  ]);
  const status = /status: ([A-Z]+)/.exec(stdout)?.[1] ?? 'NO-ANSWER';
  const section = stdout.split(';; ANSWER SECTION:\n')[1]?.split('\n\n')[0] ?? '';
  const data = section
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 5)
    .map((f) => f.slice(4).join(' '));
  return { status, data };
}
