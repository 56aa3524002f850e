import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket, { type Packet } from 'dns-packet';
import { MAX_UDP_PAYLOAD } from '../dns/message.ts';
import { equalsIgnoreCase, questionEnd } from '../dns/wire.ts';

/** An upstream resolver address. */
export interface UpstreamServer {
  readonly host: string;
  readonly port: number;
}

/** Upstream settings. */
export interface UpstreamOptions {
  /** Per-attempt timeout, ms. Default 1500. */
  timeoutMs?: number;
  /** Consecutive failures (timeout, send error, SERVFAIL) after which an upstream is marked down. Default 2. */
  maxFailures?: number;
  /** How often each down upstream is probed (`. NS`), ms. Default 5000. */
  probeIntervalMs?: number;
}

/**
 * The question sent upstream: the wire question section (qname as the client spelled it, qtype,
 * qclass; RFC 1035 §4.1.2) and the client's DO bit (RFC 3225), mirrored in our EDNS(0) OPT.
 */
export interface UpstreamQuestion {
  /** qname + qtype + qclass exactly as on the wire (uncompressed). */
  readonly question: Buffer;
  readonly dnssecOk: boolean;
}

/** Counters, for metrics (monotonic since start). */
export interface UpstreamStats {
  /** Attempts sent (UDP queries, excluding TCP retries and probes). */
  queries: number;
  timeouts: number;
  tcpFallbacks: number;
  /** Datagrams ignored: wrong source, id or question, or not a response (RFC 5452 §9.1). */
  mismatched: number;
  /** Send, bind, ICMP-refused and TCP errors. */
  errors: number;
  /** SERVFAIL answers (each counts as a failure of that upstream). */
  servfails: number;
  /** Queries that moved on to a further upstream after a failure. */
  failovers: number;
  /** Health probes sent to down upstreams. */
  probes: number;
  /** Times a down upstream was marked healthy again. */
  recoveries: number;
}

/** Health of one upstream, as {@link UpstreamClient.health} reports it. */
export interface UpstreamHealth {
  readonly host: string;
  readonly port: number;
  readonly healthy: boolean;
  /** Failures since the last success. */
  readonly consecutiveFailures: number;
  /** Smoothed round-trip time of successful UDP answers, ms (EWMA, α = 0.2); 0 before the first. */
  readonly rttMs: number;
}

interface ServerState {
  readonly server: UpstreamServer;
  failures: number;
  healthy: boolean;
  rttMs: number;
  probing: boolean;
}

/** A datagram's verdict against the query it might answer. */
export type AnswerCheck = 'ok' | 'wrong-source' | 'not-response' | 'wrong-id' | 'wrong-question';

/**
 * RFC 5452 §9.1 acceptance test of an upstream UDP datagram: it must come from the address and
 * port the query went to, be a response (QR=1) with the query's 16-bit id, and carry exactly the
 * query's question (qname compared case-insensitively, qtype, qclass; QDCOUNT = 1).
 * `question` is the wire question we sent (see {@link UpstreamQuestion.question}).
 */
export function checkAnswer(
  msg: Buffer,
  from: { address: string; port: number },
  server: UpstreamServer,
  id: number,
  question: Buffer,
): AnswerCheck {
  if (from.port !== server.port || !sameHost(from.address, server.host)) return 'wrong-source';
  if (msg.length < 12 || (msg[2]! & 0x80) === 0) return 'not-response';
  if (msg.readUInt16BE(0) !== id) return 'wrong-id';
  if (msg.readUInt16BE(4) !== 1) return 'wrong-question';
  const end = questionEnd(msg);
  if (end - 12 !== question.length || !equalsIgnoreCase(msg, 12, question, 0, question.length)) return 'wrong-question';
  return 'ok';
}

/** The probe question: `. NS IN` (what resolvers commonly use; any non-SERVFAIL answer counts). */
const PROBE_QUESTION = Buffer.from([0, 0, 2, 0, 1]);

/**
 * Forwards questions to the configured upstreams (docs/architecture.md "Data plane").
 *
 * Anti-spoofing (RFC 5452 §4, §9.1, §10): every UDP attempt uses a fresh socket bound to a port
 * drawn from a CSPRNG over 1024–65535 (the OS's ephemeral choice after repeated collisions) and
 * connected to the upstream, so the kernel drops datagrams from any other address or port; ids
 * are CSPRNG-random too, and {@link checkAnswer} still checks source, id and question of every
 * datagram. A mismatching datagram is counted and ignored: the attempt keeps waiting for the
 * real answer.
 *
 * Health: each upstream counts consecutive failures (timeout, send error or ICMP refusal,
 * SERVFAIL) and a smoothed RTT. After `maxFailures` it is marked down: queries try healthy
 * upstreams first (configured order), and down ones only as a last resort, while a timer probes
 * each down upstream every `probeIntervalMs` and marks it healthy on any non-SERVFAIL answer.
 * A query moves to the next upstream on timeout or SERVFAIL; a truncated UDP answer (TC=1) is
 * retried over TCP at the same upstream (RFC 7766 §5).
 */
export class UpstreamClient {
  readonly stats: UpstreamStats = {
    queries: 0,
    timeouts: 0,
    tcpFallbacks: 0,
    mismatched: 0,
    errors: 0,
    servfails: 0,
    failovers: 0,
    probes: 0,
    recoveries: 0,
  };
  private readonly states: ServerState[];
  private readonly timeoutMs: number;
  private readonly maxFailures: number;
  private readonly probeTimer: NodeJS.Timeout;
  private readonly open = new Set<dgram.Socket | net.Socket>();
  private closed = false;

  /** @throws when `servers` is empty */
  constructor(servers: readonly UpstreamServer[], opts: UpstreamOptions = {}) {
    if (servers.length === 0) throw new Error('at least one upstream is required');
    this.states = servers.map((server) => ({ server, failures: 0, healthy: true, rttMs: 0, probing: false }));
    this.timeoutMs = opts.timeoutMs ?? 1500;
    this.maxFailures = Math.max(1, opts.maxFailures ?? 2);
    this.probeTimer = setInterval(() => this.probeDown(), opts.probeIntervalMs ?? 5000);
    this.probeTimer.unref();
  }

  /** Each upstream's health, in configured order (a fresh copy). */
  health(): UpstreamHealth[] {
    return this.states.map((s) => ({
      host: s.server.host,
      port: s.server.port,
      healthy: s.healthy,
      consecutiveFailures: s.failures,
      rttMs: Math.round(s.rttMs * 100) / 100,
    }));
  }

  /**
   * Resolves `question`: healthy upstreams first, each tried once, the next one after a timeout,
   * error or SERVFAIL. Resolves to the first usable response (any RCODE but SERVFAIL), else the
   * last SERVFAIL response, else null when no upstream answered. Never rejects.
   */
  async resolve(question: UpstreamQuestion): Promise<Packet | null> {
    let servfail: Packet | null = null;
    let attempt = 0;
    for (const state of this.order()) {
      if (this.closed) break;
      if (attempt++ > 0) this.stats.failovers++;
      this.stats.queries++;
      const started = performance.now();
      let res = await this.queryUdp(state.server, question.question, question.dnssecOk);
      if (res !== null && (res.flags ?? 0) & dnsPacket.TRUNCATED_RESPONSE) {
        this.stats.tcpFallbacks++;
        res = await this.queryTcp(state.server, question.question, question.dnssecOk);
      }
      if (res === null) {
        this.failed(state);
        continue;
      }
      if (((res.flags ?? 0) & 0xf) === 2) {
        this.stats.servfails++;
        this.failed(state);
        servfail = res;
        continue;
      }
      this.succeeded(state, performance.now() - started);
      return res;
    }
    return servfail;
  }

  /**
   * Resolves `question` at one given server, a static route's resolver (docs/architecture.md
   * "Decision order" step 2), with the same anti-spoofing and TCP fallback as {@link resolve}: one
   * attempt, no failover to the configured upstreams (a private zone must not leak to them) and no
   * health bookkeeping. Resolves to the response (any RCODE, SERVFAIL included), else null when the
   * server did not answer. Never rejects.
   */
  async resolveAt(server: UpstreamServer, question: UpstreamQuestion): Promise<Packet | null> {
    this.stats.queries++;
    let res = await this.queryUdp(server, question.question, question.dnssecOk);
    if (res !== null && (res.flags ?? 0) & dnsPacket.TRUNCATED_RESPONSE) {
      this.stats.tcpFallbacks++;
      res = await this.queryTcp(server, question.question, question.dnssecOk);
    }
    return res;
  }

  /** Healthy upstreams in configured order, then down ones (last resort). */
  private order(): ServerState[] {
    const healthy: ServerState[] = [];
    const down: ServerState[] = [];
    for (const s of this.states) (s.healthy ? healthy : down).push(s);
    return down.length === 0 ? healthy : healthy.concat(down);
  }

  private failed(state: ServerState): void {
    state.failures++;
    if (state.failures >= this.maxFailures) state.healthy = false;
  }

  private succeeded(state: ServerState, rttMs: number): void {
    state.failures = 0;
    if (!state.healthy) {
      state.healthy = true;
      this.stats.recoveries++;
    }
    state.rttMs = state.rttMs === 0 ? rttMs : state.rttMs * 0.8 + rttMs * 0.2;
  }

  private probeDown(): void {
    for (const state of this.states) {
      if (state.healthy || state.probing || this.closed) continue;
      state.probing = true;
      this.stats.probes++;
      const started = performance.now();
      void this.queryUdp(state.server, PROBE_QUESTION, false).then((res) => {
        state.probing = false;
        if (res !== null && ((res.flags ?? 0) & 0xf) !== 2) this.succeeded(state, performance.now() - started);
      });
    }
  }

  private queryMessage(id: number, question: Buffer, dnssecOk: boolean): Buffer {
    const out = Buffer.alloc(12 + question.length + 11);
    out.writeUInt16BE(id, 0);
    out.writeUInt16BE(0x0100, 2); // RD
    out.writeUInt16BE(1, 4); // QDCOUNT
    out.writeUInt16BE(1, 10); // ARCOUNT: our OPT
    question.copy(out, 12);
    const opt = 12 + question.length; // OPT (RFC 6891 §6.1.2): root name, type 41, class = payload size
    out.writeUInt16BE(41, opt + 1);
    out.writeUInt16BE(MAX_UDP_PAYLOAD, opt + 3);
    out.writeUInt16BE(dnssecOk ? dnsPacket.DNSSEC_OK : 0, opt + 7);
    return out;
  }

  /** A fresh UDP socket on a random port (RFC 5452 §10), connected to `server`; null on failure. */
  private async openSocket(server: UpstreamServer): Promise<dgram.Socket | null> {
    const type = net.isIPv6(server.host) ? 'udp6' : 'udp4';
    for (let attempt = 0; attempt < 8 && !this.closed; attempt++) {
      const socket = dgram.createSocket(type);
      const port = attempt < 7 ? randomInt(1024, 65536) : 0;
      const ok = await new Promise<boolean>((resolve) => {
        const onError = () => resolve(false);
        socket.once('error', onError);
        socket.bind(port, () => {
          socket.connect(server.port, server.host, () => {
            socket.off('error', onError);
            resolve(true);
          });
        });
      });
      if (ok) return socket;
      closeQuietly(socket);
    }
    return null;
  }

  private async queryUdp(server: UpstreamServer, question: Buffer, dnssecOk: boolean): Promise<Packet | null> {
    if (this.closed) return null;
    const socket = await this.openSocket(server);
    if (socket === null) {
      this.stats.errors++;
      return null;
    }
    this.open.add(socket);
    const id = randomInt(0, 0x10000);
    return new Promise((resolve) => {
      let done = false;
      const finish = (p: Packet | null) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.open.delete(socket);
        closeQuietly(socket);
        resolve(p);
      };
      const timer = setTimeout(() => {
        this.stats.timeouts++;
        finish(null);
      }, this.timeoutMs);
      socket.on('close', () => finish(null));
      socket.on('error', () => {
        // ICMP port unreachable on a connected socket, or a send error: this upstream failed.
        this.stats.errors++;
        finish(null);
      });
      socket.on('message', (msg, rinfo) => {
        if (checkAnswer(msg, rinfo, server, id, question) !== 'ok') {
          this.stats.mismatched++;
          return;
        }
        try {
          finish(dnsPacket.decode(msg));
        } catch {
          this.stats.mismatched++;
        }
      });
      socket.send(this.queryMessage(id, question, dnssecOk));
    });
  }

  private queryTcp(server: UpstreamServer, question: Buffer, dnssecOk: boolean): Promise<Packet | null> {
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const id = randomInt(0, 0x10000);
      const query = this.queryMessage(id, question, dnssecOk);
      const frame = Buffer.allocUnsafe(query.length + 2);
      frame.writeUInt16BE(query.length, 0);
      query.copy(frame, 2);
      let buffered: Buffer = Buffer.alloc(0);
      let done = false;
      const finish = (p: Packet | null) => {
        if (done) return;
        done = true;
        this.open.delete(socket);
        socket.destroy();
        if (p === null) this.stats.errors++;
        resolve(p);
      };
      const socket = net.connect({ host: server.host, port: server.port });
      this.open.add(socket);
      socket.setTimeout(this.timeoutMs, () => finish(null));
      socket.on('error', () => finish(null));
      socket.on('close', () => finish(null));
      socket.on('connect', () => socket.write(frame));
      socket.on('data', (chunk: Buffer) => {
        buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
        if (buffered.length < 2) return;
        const len = buffered.readUInt16BE(0);
        if (buffered.length < len + 2) return;
        const msg = buffered.subarray(2, len + 2);
        if (checkAnswer(msg, { address: server.host, port: server.port }, server, id, question) !== 'ok') {
          this.stats.mismatched++;
          finish(null);
          return;
        }
        try {
          finish(dnsPacket.decode(msg));
        } catch {
          finish(null);
        }
      });
    });
  }

  /** Stops probing and closes every socket; attempts in flight resolve to null. */
  close(): void {
    this.closed = true;
    clearInterval(this.probeTimer);
    for (const s of this.open) {
      if (s instanceof net.Socket) s.destroy();
      else closeQuietly(s);
    }
    this.open.clear();
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

function closeQuietly(socket: dgram.Socket): void {
  try {
    socket.close();
  } catch {
    // already closed
  }
}
