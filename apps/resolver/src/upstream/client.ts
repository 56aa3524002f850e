import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket, { type Packet } from 'dns-packet';
import { MAX_UDP_PAYLOAD, optRecord } from '../dns/message.ts';

/** An upstream resolver address. */
export interface UpstreamServer {
  readonly host: string;
  readonly port: number;
}

/** Upstream settings. */
export interface UpstreamOptions {
  /** Per-attempt timeout, ms. Default 1500. */
  timeoutMs?: number;
}

/** The question sent upstream. `name` as the client sent it; matched case-insensitively. */
export interface UpstreamQuestion {
  readonly name: string;
  readonly type: string;
  readonly class: string;
  readonly dnssecOk: boolean;
}

/** Counters, for metrics. */
export interface UpstreamStats {
  queries: number;
  timeouts: number;
  tcpFallbacks: number;
  mismatched: number;
  errors: number;
}

interface Pending {
  readonly server: UpstreamServer;
  readonly question: UpstreamQuestion;
  readonly resolve: (p: Packet | null) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * Forwards questions to the configured upstreams (DESIGN.md §9): UDP with a per-attempt timeout,
 * the next upstream on timeout or error, TCP to the same upstream when the UDP answer is
 * truncated (TC=1, RFC 7766 §5). Anti-spoofing (RFC 5452 §4.3, §9.1): random 16-bit ids from a
 * CSPRNG, and an answer is accepted only from the server asked, with the same id and question.
 * One UDP socket per address family is shared by all queries (source-port randomisation per query
 * is a later hardening step).
 */
export class UpstreamClient {
  readonly stats: UpstreamStats = { queries: 0, timeouts: 0, tcpFallbacks: 0, mismatched: 0, errors: 0 };
  private readonly pending = new Map<number, Pending>();
  private readonly timeoutMs: number;
  private socket4: dgram.Socket | null = null;
  private socket6: dgram.Socket | null = null;
  private closed = false;

  constructor(
    private readonly servers: readonly UpstreamServer[],
    opts: UpstreamOptions = {},
  ) {
    if (servers.length === 0) throw new Error('at least one upstream is required');
    this.timeoutMs = opts.timeoutMs ?? 1500;
  }

  /**
   * Resolves `question`, trying each upstream once in order. Resolves to the upstream's response
   * (any RCODE), or null when every upstream failed or timed out. Never rejects.
   */
  async resolve(question: UpstreamQuestion): Promise<Packet | null> {
    for (let i = 0; i < this.servers.length; i++) {
      const server = this.servers[i]!;
      this.stats.queries++;
      const udp = await this.queryUdp(server, question);
      if (udp === null) continue;
      if (((udp.flags ?? 0) & 0x200) === 0) return udp;
      this.stats.tcpFallbacks++;
      const tcp = await this.queryTcp(server, question);
      if (tcp !== null) return tcp;
    }
    return null;
  }

  private queryMessage(id: number, q: UpstreamQuestion): Buffer {
    return dnsPacket.encode({
      id,
      type: 'query',
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ name: q.name, type: q.type as never, class: q.class as never }],
      additionals: [optRecord(q.dnssecOk)],
    });
  }

  private socketFor(host: string): dgram.Socket {
    const v6 = net.isIPv6(host);
    const existing = v6 ? this.socket6 : this.socket4;
    if (existing) return existing;
    const socket = dgram.createSocket(v6 ? 'udp6' : 'udp4');
    socket.on('message', (msg, rinfo) => this.onMessage(msg, rinfo));
    socket.on('error', () => {
      this.stats.errors++;
    });
    socket.unref();
    if (v6) this.socket6 = socket;
    else this.socket4 = socket;
    return socket;
  }

  private freshId(): number {
    for (;;) {
      const id = randomInt(0, 0x10000);
      if (!this.pending.has(id)) return id;
    }
  }

  private queryUdp(server: UpstreamServer, question: UpstreamQuestion): Promise<Packet | null> {
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const id = this.freshId();
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.stats.timeouts++;
        resolve(null);
      }, this.timeoutMs);
      this.pending.set(id, { server, question, resolve, timer });
      this.socketFor(server.host).send(this.queryMessage(id, question), server.port, server.host, (err) => {
        if (!err) return;
        clearTimeout(timer);
        this.pending.delete(id);
        this.stats.errors++;
        resolve(null);
      });
    });
  }

  private onMessage(msg: Buffer, rinfo: dgram.RemoteInfo): void {
    if (msg.length < 12) return;
    const id = msg.readUInt16BE(0);
    const p = this.pending.get(id);
    if (!p || rinfo.port !== p.server.port || !sameHost(rinfo.address, p.server.host)) {
      this.stats.mismatched++;
      return;
    }
    let packet: Packet;
    try {
      packet = dnsPacket.decode(msg);
    } catch {
      this.stats.mismatched++;
      return;
    }
    if (!matchesQuestion(packet, p.question)) {
      this.stats.mismatched++;
      return;
    }
    clearTimeout(p.timer);
    this.pending.delete(id);
    p.resolve(packet);
  }

  private queryTcp(server: UpstreamServer, question: UpstreamQuestion): Promise<Packet | null> {
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const id = this.freshId();
      const query = this.queryMessage(id, question);
      const frame = Buffer.allocUnsafe(query.length + 2);
      frame.writeUInt16BE(query.length, 0);
      query.copy(frame, 2);
      let buffered: Buffer = Buffer.alloc(0);
      let done = false;
      const finish = (p: Packet | null) => {
        if (done) return;
        done = true;
        socket.destroy();
        if (p === null) this.stats.errors++;
        resolve(p);
      };
      const socket = net.connect({ host: server.host, port: server.port });
      socket.setTimeout(this.timeoutMs, () => finish(null));
      socket.on('error', () => finish(null));
      socket.on('close', () => finish(null));
      socket.on('connect', () => socket.write(frame));
      socket.on('data', (chunk: Buffer) => {
        buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
        if (buffered.length < 2) return;
        const len = buffered.readUInt16BE(0);
        if (buffered.length < len + 2) return;
        try {
          const packet = dnsPacket.decode(buffered.subarray(2, len + 2));
          finish(packet.id === id && matchesQuestion(packet, question) ? packet : null);
        } catch {
          finish(null);
        }
      });
    });
  }

  /** Stops waiting for answers and closes the sockets; pending queries resolve to null. */
  close(): void {
    this.closed = true;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.resolve(null);
    }
    this.socket4?.close();
    this.socket6?.close();
    this.socket4 = this.socket6 = null;
  }
}

/** The EDNS(0) payload size we advertise upstream, bytes. */
export const UPSTREAM_PAYLOAD = MAX_UDP_PAYLOAD;

function sameHost(a: string, b: string): boolean {
  if (a === b) return true;
  const ua = a.startsWith('::ffff:') ? a.slice(7) : a;
  const ub = b.startsWith('::ffff:') ? b.slice(7) : b;
  return ua.toLowerCase() === ub.toLowerCase();
}

function matchesQuestion(packet: Packet, q: UpstreamQuestion): boolean {
  const got = packet.questions?.[0];
  if (!got || packet.questions!.length !== 1) return false;
  return got.name.toLowerCase() === q.name.toLowerCase() && got.type === q.type && (got.class ?? 'IN') === q.class;
}
