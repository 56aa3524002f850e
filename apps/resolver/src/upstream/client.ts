import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import { MAX_UDP_PAYLOAD } from '../dns/message.ts';
import { equalsIgnoreCase, questionEnd, skipName } from '../dns/wire.ts';

/** An upstream resolver address. */
export interface UpstreamServer {
  readonly host: string;
  readonly port: number;
}

/** Upstream settings (docs/operations.md "Upstreams"). */
export interface UpstreamOptions {
  /**
   * The budget of one query across all its attempts (first send, retransmissions, a TCP retry), ms:
   * past it the query ends as a `timeout` failure. Default 3000.
   */
  timeoutMs?: number;
  /** Smallest retransmission timeout (RTO), ms. Default 200. */
  minRtoMs?: number;
  /** Largest first RTO, ms (later waits double from it: RFC 1035 §4.2.1). Default 800. */
  maxRtoMs?: number;
  /** Consecutive queries an upstream got attempts in and did not answer, after which it is marked down. Default 2. */
  maxFailures?: number;
  /** How often each down upstream is probed (`. NS`), ms. Default 5000. */
  probeIntervalMs?: number;
  /** The monotonic clock upstream ports are aged by ({@link PORT_MAX_AGE_MS}), ms; tests inject one. Default `performance.now`. */
  now?: () => number;
}

/**
 * The question sent upstream: the wire question section (qname as the client spelled it, qtype,
 * qclass; RFC 1035 §4.1.2) and the client's DNSSEC bits, which the upstream query carries as the
 * client set them: DO (RFC 3225) in our EDNS(0) OPT, CD (RFC 4035 §3.2.2) in the header.
 */
export interface UpstreamQuestion {
  /** qname + qtype + qclass exactly as on the wire (uncompressed). */
  readonly question: Buffer;
  /** The client's DO bit (RFC 3225 §3). */
  readonly dnssecOk: boolean;
  /** The client's CD bit (RFC 4035 §3.2.2, RFC 6840 §5.9). */
  readonly checkingDisabled: boolean;
}

/**
 * What {@link UpstreamClient.resolve} and {@link UpstreamClient.resolveAt} resolve to.
 *
 * - `answer`: the first upstream response accepted — the wire message exactly as received, which
 *   passed {@link checkAnswer} (source, id, question: RFC 5452 §9.1) and whose records all lie
 *   within it ({@link answerRcode}). Any RCODE, SERVFAIL included (an upstream's SERVFAIL is its
 *   answer). `rcode` is the full RCODE: the OPT's EXTENDED-RCODE over the header's four bits
 *   (RFC 6891 §6.1.3). With TC=1 over UDP the message is the TCP retry's (RFC 7766 §5).
 * - `failure`: no upstream answered within the budget. `reason` is `network` when a send, bind,
 *   ICMP (e.g. port unreachable) or TCP error was seen during the query (→ EDE 23 Network Error,
 *   RFC 8914 §4.24), else `timeout`: every attempt went unanswered (→ EDE 22 No Reachable
 *   Authority, RFC 8914 §4.23).
 */
export type UpstreamResult =
  | { readonly kind: 'answer'; readonly message: Buffer; readonly rcode: number }
  | { readonly kind: 'failure'; readonly reason: 'timeout' | 'network' };

/** Counters, for metrics (monotonic since start). */
export interface UpstreamStats {
  /** UDP attempts sent: first sends and retransmissions (excluding TCP retries and probes). */
  queries: number;
  /** Attempts after a query's first (RFC 1035 §4.2.1 retransmissions). */
  retransmissions: number;
  /** Queries that ended without an answer when their budget ran out. */
  timeouts: number;
  tcpFallbacks: number;
  /**
   * Datagrams ignored: wrong source, id or question, or not a response (RFC 5452 §9.1), or a
   * response whose records run past the message.
   */
  mismatched: number;
  /** Send, bind, ICMP-refused and TCP errors. */
  errors: number;
  /** SERVFAIL answers received (an answer: not a failure of that upstream). */
  servfails: number;
  /** Retransmissions sent to another upstream than the query's attempt before. */
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
  /** Queries in a row it got attempts in and did not answer. */
  readonly consecutiveFailures: number;
  /** Smoothed round-trip time of its UDP answers, ms (RFC 6298 §2, α = 1/8); 0 before the first. */
  readonly rttMs: number;
  /** Its retransmission timeout, ms: SRTT + 4·RTTVAR (RFC 6298 §2) clamped to `minRtoMs`–`maxRtoMs`. */
  readonly rtoMs: number;
  /**
   * The round trips of its UDP answers to queries of the pool (not probes or static routes), since
   * start: `counts[i]` answers took at most `boundsMs[i]` ({@link UPSTREAM_LATENCY_BOUNDS_MS}) and more
   * than the bound before it (the last count: above every bound); `sumMs` their total. A copy.
   */
  readonly latency: { boundsMs: readonly number[]; counts: number[]; sumMs: number };
}

/** Upper bounds of the upstream latency buckets of {@link UpstreamHealth.latency}, ms. */
export const UPSTREAM_LATENCY_BOUNDS_MS: readonly number[] = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500];

interface ServerState {
  readonly server: UpstreamServer;
  /** `host|port`: its port slot's key, made once. */
  readonly key: string;
  failures: number;
  healthy: boolean;
  /** Whether {@link srtt} holds a sample yet. */
  sampled: boolean;
  srtt: number;
  rttvar: number;
  probing: boolean;
  /** {@link UpstreamHealth.latency}: one count per bound and one above them all. */
  latencyCounts: Float64Array;
  latencySumMs: number;
}

/** How a run of attempts is accounted: the pool's health and stats, a static route's stats only, or a probe's nothing. */
type RunMode = 'pool' | 'route' | 'probe';

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

/**
 * Walks the answer, authority and additional records of a response that passed {@link checkAnswer}
 * (RFC 1035 §4.1.3: owner name, type, class, TTL, RDLENGTH, RDATA) and returns its full RCODE —
 * the first OPT record's EXTENDED-RCODE over the header's four bits (RFC 6891 §6.1.3) — or -1 when
 * a name or record runs past the message. RDATA is not parsed; bytes after the last record are
 * ignored.
 */
export function answerRcode(msg: Buffer): number {
  let off = questionEnd(msg);
  if (off < 0) return -1;
  const an = msg.readUInt16BE(6);
  const ns = msg.readUInt16BE(8);
  const total = an + ns + msg.readUInt16BE(10);
  let extended = -1;
  for (let i = 0; i < total; i++) {
    off = skipName(msg, off);
    if (off < 0 || off + 10 > msg.length) return -1;
    if (i >= an + ns && extended < 0 && msg.readUInt16BE(off) === 41) extended = msg[off + 4]!;
    off += 10 + msg.readUInt16BE(off + 8);
    if (off > msg.length) return -1;
  }
  return ((extended < 0 ? 0 : extended) << 4) | (msg[3]! & 0xf);
}

/** The probe question: `. NS IN` (what resolvers commonly use; any non-SERVFAIL answer counts). */
const PROBE_QUESTION: UpstreamQuestion = {
  question: Buffer.from([0, 0, 2, 0, 1]),
  dnssecOk: false,
  checkingDisabled: false,
};

/** RTO of an upstream without an RTT sample yet, ms, before clamping (RFC 6298 §2.1 says 1 s for TCP; DNS answers come sooner). */
const INITIAL_RTO_MS = 400;

/** Header flags of a query: RD (RFC 1035 §4.1.1) and AD, asking for AD in the answer (RFC 6840 §5.7). */
const QUERY_FLAGS = 0x0100 | 0x0020;
/** The CD bit (RFC 4035 §3.2.2). */
const CD = 0x0010;
/** The DO bit of the OPT TTL's flags (RFC 3225 §3). */
const DO = 0x8000;
/** The TC bit (RFC 1035 §4.1.1). */
const TC = 0x0200;
/** RCODE SERVFAIL (RFC 1035 §4.1.1). */
const SERVFAIL = 2;

/**
 * Queries one upstream port carries before a fresh one is opened (docs/decisions.md "Upstream
 * ports"): its ids are drawn at random and never reused on it, so this bounds how long one port
 * number stays valid for an off-path guesser (RFC 5452 §4, §10).
 */
export const PORT_QUERIES = 16;
/** Age after which an upstream port takes no new query, ms; an idle port this old is closed by a sweep. */
export const PORT_MAX_AGE_MS = 1000;

/**
 * One query's run of attempts ({@link UpstreamClient}): its state as fields, with no closures or
 * collections made per query beyond two short arrays, so a forwarded query leaves little garbage
 * (docs/decisions.md "Upstream queries as plain state").
 */
class QueryRun {
  readonly deadline: number;
  readonly counted: boolean;
  /** The targets asked in this query, in the order of their first attempt, and when it went out (ms). */
  readonly sentTo: ServerState[] = [];
  readonly sentAt: number[] = [];
  /** Targets whose latest attempt failed at once (send, bind or ICMP error); made on the first such failure. */
  refused: Set<ServerState> | null = null;
  /** Targets any attempt of which failed at once in this query. */
  erred: Set<ServerState> | null = null;
  /** This query's UDP attempts still waiting, each on its shared port (see {@link UpstreamPort}). */
  readonly waiting: PortAttempt[] = [];
  /** Cancels the TCP retry in flight, if any. */
  cancelTcp: (() => void) | null = null;
  attempts = 0;
  previous: ServerState | null = null;
  inFlight = 0;
  /** Set while the query waits for a port to open. */
  sending = false;
  sawError = false;
  done = false;
  /** Set when the UDP part is over: the query answered, or moved to TCP on TC=1. */
  udpOver = false;
  retransmitTimer: NodeJS.Timeout | null = null;
  budgetTimer: NodeJS.Timeout | null = null;

  /**
   * @param targets cycled from `position` on (a rotation without a copy)
   * @param started when the query began, ms (`performance.now`)
   * @param budgetMs the query's budget across all its attempts
   */
  constructor(
    readonly targets: readonly ServerState[],
    public position: number,
    readonly question: UpstreamQuestion,
    readonly mode: RunMode,
    started: number,
    budgetMs: number,
    readonly settle: (result: UpstreamResult) => void,
  ) {
    this.deadline = started + budgetMs;
    this.counted = mode !== 'probe';
  }
}

/** One UDP attempt of one query, waiting on its {@link UpstreamPort} under its id. */
class PortAttempt {
  /** False once the attempt stopped waiting (its query ended, or it failed). */
  live = true;

  /** @param sentAt when it was sent, ms (`performance.now`) */
  constructor(
    readonly port: UpstreamPort,
    readonly id: number,
    readonly run: QueryRun,
    readonly state: ServerState,
    readonly sentAt: number,
  ) {}
}

/** What an {@link UpstreamPort} reports to its client: one object per client, not per attempt. */
interface PortEvents {
  /** A datagram with a live attempt's id arrived on the port (still to be checked: RFC 5452 §9.1). */
  message(attempt: PortAttempt, msg: Buffer, from: dgram.RemoteInfo): void;
  /** The port reported an error (ICMP unreachable from the upstream, or a failed send) while `attempt` waited. */
  error(attempt: PortAttempt): void;
  /** A datagram whose id no attempt of this port has (counted as mismatched). */
  unknown(): void;
}

/**
 * A UDP socket bound to a CSPRNG-drawn port and connected to one upstream, so the kernel drops
 * datagrams from any other address or port; it carries the attempts of up to {@link PORT_QUERIES}
 * queries within {@link PORT_MAX_AGE_MS}, each under an id drawn at random and used once on it, and
 * is closed once it takes no more and none waits (docs/decisions.md "Upstream ports").
 */
class UpstreamPort {
  /** Every attempt sent from this port, by id: ids are never reused on one port. */
  readonly attempts = new Map<number, PortAttempt>();
  /** Attempts still waiting. */
  live = 0;
  /** Set when the port must take no new query (an error, its age, or the client closed). */
  retired = false;
  closed = false;

  /**
   * @param socket bound and connected already
   * @param openedAt when it was opened, ms on the client's clock
   * @param events where its datagrams and errors go
   */
  constructor(
    readonly socket: dgram.Socket,
    readonly openedAt: number,
    events: PortEvents,
  ) {
    socket.on('message', (msg, from) => {
      const attempt = msg.length >= 12 ? this.attempts.get(msg.readUInt16BE(0)) : undefined;
      if (attempt === undefined) events.unknown();
      // An answer to an attempt that stopped waiting is dropped, as a closed socket would.
      else if (attempt.live) events.message(attempt, msg, from);
    });
    socket.on('error', () => {
      // ICMP port unreachable or a send error on a connected socket: every attempt here went to that upstream.
      this.retired = true;
      for (const attempt of [...this.attempts.values()]) if (attempt.live) events.error(attempt);
      if (this.live === 0) this.close();
    });
    socket.unref();
  }

  /** Whether it takes no new query: retired, closed, used {@link PORT_QUERIES} times, or too old at `now`. */
  spent(now: number): boolean {
    return this.retired || this.attempts.size >= PORT_QUERIES || now - this.openedAt >= PORT_MAX_AGE_MS;
  }

  /** A CSPRNG-drawn id not yet used on this port (RFC 5452 §4). */
  freeId(): number {
    let id = randomInt(0, 0x10000);
    while (this.attempts.has(id)) id = randomInt(0, 0x10000);
    return id;
  }

  /**
   * Sends `query`. A send error is emitted as the socket's `error` and fails every attempt waiting
   * here: on a connected socket it reports that upstream unreachable (a queued ICMP error, no route).
   */
  send(query: Buffer): void {
    this.socket.send(query);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.retired = true;
    closeQuietly(this.socket);
  }
}

/** The port in use towards one upstream address, and the one being opened. */
interface PortSlot {
  readonly server: UpstreamServer;
  current: UpstreamPort | null;
  opening: Promise<UpstreamPort | null> | null;
}

const TIMEOUT: UpstreamResult = Object.freeze({ kind: 'failure', reason: 'timeout' });
const NETWORK: UpstreamResult = Object.freeze({ kind: 'failure', reason: 'network' });

/**
 * Forwards questions to the configured upstreams (docs/architecture.md "Data plane",
 * docs/operations.md "Upstreams").
 *
 * Retransmission (RFC 1035 §4.2.1): a query has a budget (`timeoutMs`, default 3 s). Its first
 * attempt goes to the next healthy upstream in round-robin order; when no answer has come after
 * that upstream's RTO (RFC 6298 §2 from its smoothed RTT, clamped to 200–800 ms), the query is
 * sent again, to the next upstream in the rotation (down upstreams last), each wait twice the one
 * before. Earlier attempts keep listening: the first acceptable answer to any attempt wins. An
 * attempt that fails at once (ICMP port unreachable, send error) moves the query on to the next
 * upstream without waiting; a query whose every upstream failed so, with nothing left in flight,
 * ends there.
 *
 * Anti-spoofing (RFC 5452 §4, §9.1, §10): every UDP attempt goes from a socket bound to a port
 * drawn from a CSPRNG over 1024–65535 (the OS's ephemeral choice after repeated collisions) and
 * connected to the upstream, so the kernel drops datagrams from any other address or port; a port
 * carries the attempts of at most {@link PORT_QUERIES} queries within {@link PORT_MAX_AGE_MS}, each
 * under a CSPRNG-drawn id not used before on it (docs/decisions.md "Upstream ports").
 * {@link checkAnswer} still checks source, id and question of every datagram, then
 * {@link answerRcode} that its records lie within it. A datagram failing either, or whose id no
 * attempt on its port has, is counted and ignored: the query keeps waiting for the real answer.
 * An answer to an attempt that stopped waiting is dropped uncounted.
 *
 * An upstream's answer is returned whatever its RCODE: a SERVFAIL is not sent on to the other
 * upstreams and is no failure of the upstream (it is counted in `servfails`). A truncated UDP
 * answer (TC=1) is retried over TCP at the same upstream (RFC 7766 §5) with the rest of the
 * budget (at least `maxRtoMs`).
 *
 * Health: an upstream that got attempts in a query and did not answer (refused one, or was
 * given at least its RTO: a slower peer's answer does not count against the one asked after it)
 * counts one failure; an answer resets its count. After `maxFailures` in a row it is marked down: it is
 * asked only after the healthy ones, and a timer probes it every `probeIntervalMs`, marking it
 * healthy on any non-SERVFAIL answer (so does a non-SERVFAIL answer to a query).
 */
export class UpstreamClient {
  readonly stats: UpstreamStats = {
    queries: 0,
    retransmissions: 0,
    timeouts: 0,
    tcpFallbacks: 0,
    mismatched: 0,
    errors: 0,
    servfails: 0,
    failovers: 0,
    probes: 0,
    recoveries: 0,
  };
  private states: ServerState[];
  private readonly budgetMs: number;
  private readonly minRtoMs: number;
  private readonly maxRtoMs: number;
  private readonly maxFailures: number;
  private readonly now: () => number;
  private readonly probeTimer: NodeJS.Timeout;
  /** The runs in flight, ended by {@link close}. */
  private readonly running = new Set<QueryRun>();
  /** Where every port of this client reports (see {@link PortEvents}). */
  private readonly portEvents: PortEvents = {
    message: (attempt, msg, from) => this.attemptMessage(attempt, msg, from),
    error: (attempt) => this.attemptError(attempt),
    unknown: () => {
      this.stats.mismatched++;
    },
  };
  /** The timers' callbacks, made once: each timer carries its run as an argument instead of a closure. */
  private readonly onBudget = (run: QueryRun): void => {
    if (run.counted) this.stats.timeouts++;
    this.finish(run, run.sawError ? NETWORK : TIMEOUT, null);
  };
  private readonly onRetransmit = (run: QueryRun): void => this.send(run);
  /** Upstream ports by `host|port`: the pool's upstreams and static routes' resolvers alike. */
  private readonly slots = new Map<string, PortSlot>();
  /** Closes idle ports past {@link PORT_MAX_AGE_MS}. */
  private readonly sweepTimer: NodeJS.Timeout;
  /** Round-robin position among the healthy upstreams. */
  private next = 0;
  private closed = false;

  /** @throws when `servers` is empty */
  constructor(servers: readonly UpstreamServer[], opts: UpstreamOptions = {}) {
    if (servers.length === 0) throw new Error('at least one upstream is required');
    this.states = servers.map((server) => newState(server));
    this.budgetMs = Math.max(1, opts.timeoutMs ?? 3000);
    this.minRtoMs = Math.max(1, opts.minRtoMs ?? 200);
    this.maxRtoMs = Math.max(this.minRtoMs, opts.maxRtoMs ?? 800);
    this.maxFailures = Math.max(1, opts.maxFailures ?? 2);
    this.now = opts.now ?? (() => performance.now());
    this.probeTimer = setInterval(() => this.probeDown(), opts.probeIntervalMs ?? 5000);
    this.probeTimer.unref();
    this.sweepTimer = setInterval(() => this.sweepPorts(), PORT_MAX_AGE_MS);
    this.sweepTimer.unref();
  }

  /**
   * Replaces the configured upstreams (SIGHUP, docs/operations.md "Configuration check and reload"):
   * one configured before keeps its health and round-trip estimate; queries in flight finish with
   * the upstreams they started with.
   * @throws Error when `servers` is empty (the configured ones stay)
   */
  setServers(servers: readonly UpstreamServer[]): void {
    if (servers.length === 0) throw new Error('at least one upstream is required');
    const before = new Map(this.states.map((s) => [s.key, s]));
    this.states = servers.map((server) => before.get(serverKey(server)) ?? newState(server));
  }

  /** Each upstream's health, in configured order (a fresh copy). */
  health(): UpstreamHealth[] {
    return this.states.map((s) => ({
      host: s.server.host,
      port: s.server.port,
      healthy: s.healthy,
      consecutiveFailures: s.failures,
      rttMs: Math.round(s.srtt * 100) / 100,
      rtoMs: Math.round(this.rto(s)),
      latency: { boundsMs: UPSTREAM_LATENCY_BOUNDS_MS, counts: Array.from(s.latencyCounts), sumMs: s.latencySumMs },
    }));
  }

  /**
   * Resolves `question` through the configured upstreams within the budget: round-robin among
   * the healthy ones, retransmitting with backoff to the next ones (see {@link UpstreamClient}).
   * Resolves to the first acceptable answer (any RCODE), else a failure (see
   * {@link UpstreamResult}). Never rejects.
   */
  resolve(question: UpstreamQuestion): Promise<UpstreamResult> {
    const states = this.states;
    let healthy = 0;
    for (const s of states) if (s.healthy) healthy++;
    if (healthy < states.length) return this.run(this.rotation(), 0, question, 'pool');
    // All healthy: the rotation is the configured order from the round-robin position on, read in place.
    const start = this.next++ % states.length;
    if (this.next >= 0x40000000) this.next = 0;
    return this.run(states, start, question, 'pool');
  }

  /**
   * Resolves `question` at one given server, a static route's resolver (docs/architecture.md
   * "Decision order" step 2), with the same retransmission, anti-spoofing and TCP fallback as
   * {@link resolve} but every attempt to that server: no failover to the configured upstreams (a
   * private zone must not leak to them) and no health bookkeeping (its RTO is the initial one).
   * Resolves like {@link resolve}. Never rejects.
   */
  resolveAt(server: UpstreamServer, question: UpstreamQuestion): Promise<UpstreamResult> {
    return this.run([newState(server)], 0, question, 'route');
  }

  /** Stops probing and closes every socket; queries in flight resolve to a `network` failure. */
  close(): void {
    this.closed = true;
    clearInterval(this.probeTimer);
    clearInterval(this.sweepTimer);
    for (const run of [...this.running]) this.finish(run, NETWORK, null);
    this.running.clear();
    for (const slot of this.slots.values()) slot.current?.close();
    this.slots.clear();
  }

  /** The order of a query's attempts: the healthy upstreams from the round-robin position on, then the down ones. */
  private rotation(): ServerState[] {
    const healthy: ServerState[] = [];
    const down: ServerState[] = [];
    for (const s of this.states) (s.healthy ? healthy : down).push(s);
    if (healthy.length === 0) return down;
    const start = this.next++ % healthy.length;
    if (this.next >= 0x40000000) this.next = 0;
    const out = start === 0 ? healthy : healthy.slice(start).concat(healthy.slice(0, start));
    return down.length === 0 ? out : out.concat(down);
  }

  /** RFC 6298 §2: SRTT + max(1 ms, 4·RTTVAR), the initial RTO before a sample; clamped to min–max RTO. */
  private rto(s: ServerState): number {
    const raw = s.sampled ? s.srtt + Math.max(1, 4 * s.rttvar) : INITIAL_RTO_MS;
    return Math.min(this.maxRtoMs, Math.max(this.minRtoMs, raw));
  }

  /**
   * One query's attempts over `targets` (cycled from `position`), within the budget. `pool` runs
   * keep the upstreams' health and the query stats; `route` runs the query stats only; `probe`
   * neither. The run's state is a {@link QueryRun}; the methods below move it on.
   */
  private run(
    targets: readonly ServerState[],
    position: number,
    question: UpstreamQuestion,
    mode: RunMode,
  ): Promise<UpstreamResult> {
    if (this.closed) return Promise.resolve(NETWORK);
    return new Promise<UpstreamResult>((settle) => {
      const run = new QueryRun(targets, position, question, mode, performance.now(), this.budgetMs, settle);
      this.running.add(run);
      run.budgetTimer = setTimeout(this.onBudget, this.budgetMs, run);
      this.send(run);
    });
  }

  /** Ends the run's UDP part: no more retransmissions, every waiting attempt released. */
  private closeUdp(run: QueryRun): void {
    run.udpOver = true;
    if (run.retransmitTimer !== null) clearTimeout(run.retransmitTimer);
    run.retransmitTimer = null;
    for (const attempt of run.waiting) this.release(attempt);
    run.waiting.length = 0;
  }

  /**
   * Ends the run with `result` (once; later calls do nothing). A pool run counts a failure against
   * each upstream asked that did not answer and refused, or was given at least its RTO.
   */
  private finish(run: QueryRun, result: UpstreamResult, answeredBy: ServerState | null): void {
    if (run.done) return;
    run.done = true;
    if (run.budgetTimer !== null) clearTimeout(run.budgetTimer);
    this.closeUdp(run);
    if (run.cancelTcp !== null) run.cancelTcp();
    this.running.delete(run);
    if (run.mode === 'pool') {
      const now = performance.now();
      for (let i = 0; i < run.sentTo.length; i++) {
        const state = run.sentTo[i]!;
        if (state === answeredBy) continue;
        if (result.kind === 'failure' || run.erred?.has(state) === true || now - run.sentAt[i]! >= this.rto(state))
          this.failed(state);
      }
    }
    run.settle(result);
  }

  /** Records that `state`'s latest attempt failed at once (the sets are made on a query's first such failure). */
  private markRefused(run: QueryRun, state: ServerState): void {
    if (run.refused === null) run.refused = new Set();
    if (run.erred === null) run.erred = new Set();
    run.refused.add(state);
    run.erred.add(state);
  }

  /** The next target in the cycle that has not refused, or null when all have. */
  private pick(run: QueryRun): ServerState | null {
    const targets = run.targets;
    for (let i = 0; i < targets.length; i++) {
      const t = targets[(run.position + i) % targets.length]!;
      if (run.refused === null || !run.refused.has(t)) {
        run.position += i + 1;
        return t;
      }
    }
    return null;
  }

  /** An attempt that failed at once: move on without waiting, or end when nothing is left. */
  private attemptFailed(run: QueryRun): void {
    run.sawError = true;
    if (run.done || run.udpOver || run.inFlight > 0 || run.sending) return;
    if (run.refused !== null && run.refused.size >= new Set(run.targets).size) this.finish(run, NETWORK, null);
    else this.send(run);
  }

  /** A datagram for a live attempt (its port checked the id): accepted when it passes RFC 5452 §9.1 and its records lie within it. */
  private attemptMessage(attempt: PortAttempt, msg: Buffer, from: dgram.RemoteInfo): void {
    const run = attempt.run;
    if (run.done || run.udpOver) return;
    if (checkAnswer(msg, from, attempt.state.server, attempt.id, run.question.question) !== 'ok') {
      this.stats.mismatched++;
      return;
    }
    const rcode = answerRcode(msg);
    if (rcode < 0) {
      this.stats.mismatched++;
      return;
    }
    this.onAnswer(run, attempt.state, msg, rcode, performance.now() - attempt.sentAt);
  }

  /** ICMP port unreachable on the attempt's connected port, or a send error: this attempt failed. */
  private attemptError(attempt: PortAttempt): void {
    const run = attempt.run;
    if (run.done || run.udpOver || !attempt.live) return;
    this.stats.errors++;
    const at = run.waiting.indexOf(attempt);
    if (at >= 0) run.waiting.splice(at, 1);
    this.release(attempt);
    run.inFlight--;
    this.markRefused(run, attempt.state);
    this.attemptFailed(run);
  }

  /** An accepted answer from `state`: the run's result, or, truncated (TC=1), a TCP retry. */
  private onAnswer(run: QueryRun, state: ServerState, msg: Buffer, rcode: number, rttMs: number): void {
    this.sample(state, rttMs);
    if (run.mode === 'pool') recordLatency(state, rttMs);
    const flags = msg.readUInt16BE(2);
    if ((flags & TC) !== 0) {
      // RFC 7766 §5: the same upstream over TCP, with the rest of the budget.
      this.closeUdp(run);
      if (run.mode === 'pool') this.succeeded(state);
      const at = run.sentTo.indexOf(state);
      if (at >= 0) {
        run.sentTo.splice(at, 1);
        run.sentAt.splice(at, 1);
      }
      if (run.counted) this.stats.tcpFallbacks++;
      const timeoutMs = Math.max(run.deadline - performance.now(), this.maxRtoMs);
      if (run.budgetTimer !== null) clearTimeout(run.budgetTimer);
      run.budgetTimer = null;
      run.cancelTcp = this.queryTcp(state.server, run.question, timeoutMs, (result) => this.finish(run, result, state));
      return;
    }
    if (rcode === SERVFAIL) {
      if (run.counted) this.stats.servfails++;
      if (run.mode === 'pool' && state.healthy) state.failures = 0;
    } else if (run.mode === 'pool') this.succeeded(state);
    this.finish(run, { kind: 'answer', message: msg, rcode }, state);
  }

  /** The run's next attempt, to the next target in its cycle; on a port already open, at once. */
  private send(run: QueryRun): void {
    if (run.done || run.udpOver) return;
    if (run.retransmitTimer !== null) clearTimeout(run.retransmitTimer);
    run.retransmitTimer = null;
    const state = this.pick(run);
    if (state === null) return;
    const index = run.attempts++;
    if (run.counted) {
      this.stats.queries++;
      if (index > 0) {
        this.stats.retransmissions++;
        if (state !== run.previous) this.stats.failovers++;
      }
    }
    run.previous = state;
    run.refused?.delete(state);
    if (!run.sentTo.includes(state)) {
      run.sentTo.push(state);
      run.sentAt.push(performance.now());
    }
    const slot = this.slotOf(state);
    const port = this.usablePort(slot);
    if (port !== null) this.attach(run, state, index, port);
    else void this.sendOnNewPort(run, state, index, slot);
  }

  /** {@link send} when the slot has no usable port: waits for the next one to open (queries arriving meanwhile share it). */
  private async sendOnNewPort(run: QueryRun, state: ServerState, index: number, slot: PortSlot): Promise<void> {
    let port: UpstreamPort | null = null;
    while (port === null) {
      // Queries arriving while a port opens share it; those past its PORT_QUERIES open the next.
      run.sending = true;
      const opened = await this.openPort(slot);
      run.sending = false;
      if (opened === null || run.done || run.udpOver) break;
      port = this.usablePort(slot);
    }
    if (run.done || run.udpOver) return;
    if (port === null) {
      this.stats.errors++;
      this.markRefused(run, state);
      this.attemptFailed(run);
      return;
    }
    this.attach(run, state, index, port);
  }

  /** Sends attempt number `index` of the run to `state` on `port`, and arms the retransmission. */
  private attach(run: QueryRun, state: ServerState, index: number, port: UpstreamPort): void {
    run.inFlight++;
    const id = port.freeId();
    const attempt = new PortAttempt(port, id, run, state, performance.now());
    run.waiting.push(attempt);
    port.attempts.set(id, attempt);
    port.live++;
    port.send(this.queryMessage(id, run.question));
    // RFC 1035 §4.2.1: the next retransmission after this upstream's RTO, doubled per attempt.
    const wait = this.rto(state) * 2 ** Math.min(index, 16);
    if (performance.now() + wait < run.deadline) run.retransmitTimer = setTimeout(this.onRetransmit, wait, run);
  }

  private failed(state: ServerState): void {
    state.failures++;
    if (state.failures >= this.maxFailures) state.healthy = false;
  }

  private succeeded(state: ServerState): void {
    state.failures = 0;
    if (!state.healthy) {
      state.healthy = true;
      this.stats.recoveries++;
    }
  }

  /** RFC 6298 §2.2–2.3: SRTT and RTTVAR updated with one round-trip sample, ms. */
  private sample(state: ServerState, rttMs: number): void {
    if (!state.sampled) {
      state.sampled = true;
      state.srtt = rttMs;
      state.rttvar = rttMs / 2;
      return;
    }
    state.rttvar = 0.75 * state.rttvar + 0.25 * Math.abs(state.srtt - rttMs);
    state.srtt = 0.875 * state.srtt + 0.125 * rttMs;
  }

  private probeDown(): void {
    for (const state of this.states) {
      if (state.healthy || state.probing || this.closed) continue;
      state.probing = true;
      this.stats.probes++;
      void this.run([state], 0, PROBE_QUESTION, 'probe').then((res) => {
        state.probing = false;
        if (res.kind === 'answer' && res.rcode !== SERVFAIL) this.succeeded(state);
      });
    }
  }

  /** The query message: header (RD, AD, the client's CD), the question, our OPT with the client's DO (RFC 6891 §6.1.2). */
  private queryMessage(id: number, question: UpstreamQuestion): Buffer {
    const q = question.question;
    // From node's shared pool (no ArrayBuffer of its own); every byte is written below.
    const out = Buffer.allocUnsafe(12 + q.length + 11);
    out.writeUInt16BE(id, 0);
    out.writeUInt16BE(QUERY_FLAGS | (question.checkingDisabled ? CD : 0), 2);
    out.writeUInt16BE(1, 4); // QDCOUNT
    out.writeUInt32BE(0, 6); // ANCOUNT, NSCOUNT
    out.writeUInt16BE(1, 10); // ARCOUNT: our OPT
    q.copy(out, 12);
    const opt = 12 + q.length; // OPT: root name, type 41, class = payload size, TTL, RDLENGTH 0
    out[opt] = 0;
    out.writeUInt16BE(41, opt + 1);
    out.writeUInt16BE(MAX_UDP_PAYLOAD, opt + 3);
    out.writeUInt16BE(0, opt + 5); // EXTENDED-RCODE, VERSION
    out.writeUInt16BE(question.dnssecOk ? DO : 0, opt + 7);
    out.writeUInt16BE(0, opt + 9);
    return out;
  }

  /** The port slot of `state`'s server, made on first use. */
  private slotOf(state: ServerState): PortSlot {
    const { key, server } = state;
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = { server, current: null, opening: null };
      this.slots.set(key, slot);
    }
    return slot;
  }

  /** The slot's current port when it takes another query, else null (a spent port is retired). */
  private usablePort(slot: PortSlot): UpstreamPort | null {
    const port = slot.current;
    if (port === null) return null;
    if (!port.spent(this.now())) return port;
    slot.current = null;
    this.retire(port);
    return null;
  }

  /** Opens the slot's next port (one opening at a time; queries arriving meanwhile share it); null on failure. */
  private openPort(slot: PortSlot): Promise<UpstreamPort | null> {
    if (slot.opening === null) {
      slot.opening = this.openSocket(slot.server).then((socket) => {
        slot.opening = null;
        if (socket === null) return null;
        const port = new UpstreamPort(socket, this.now(), this.portEvents);
        if (this.closed) {
          port.close();
          return null;
        }
        if (slot.current !== null) this.retire(slot.current);
        slot.current = port;
        return port;
      });
    }
    return slot.opening;
  }

  /** Takes `port` out of use; closes it now when no attempt waits on it, else when the last one ends. */
  private retire(port: UpstreamPort): void {
    port.retired = true;
    if (port.live === 0) port.close();
  }

  /** Ends `attempt`'s wait on its port, closing the port when it was the last one there and the port is spent. */
  private release(attempt: PortAttempt): void {
    if (!attempt.live) return;
    attempt.live = false;
    const port = attempt.port;
    port.live--;
    if (port.live === 0 && port.spent(this.now())) port.close();
  }

  /** Every {@link PORT_MAX_AGE_MS}: closes idle spent ports and forgets slots left without one. */
  private sweepPorts(): void {
    const now = this.now();
    for (const [key, slot] of this.slots) {
      const port = slot.current;
      if (port?.spent(now)) {
        slot.current = null;
        this.retire(port);
      }
      if (slot.current === null && slot.opening === null) this.slots.delete(key);
    }
  }

  /** A fresh UDP socket on a CSPRNG-drawn port (RFC 5452 §10), connected to `server`; null on failure. */
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

  /**
   * The TCP retry of a truncated answer (RFC 7766 §5): one framed query to `server`, the answer
   * checked like a datagram. Calls `done` once with the result, unless cancelled first by the
   * function it returns.
   */
  private queryTcp(
    server: UpstreamServer,
    question: UpstreamQuestion,
    timeoutMs: number,
    done: (result: UpstreamResult) => void,
  ): () => void {
    const id = randomInt(0, 0x10000);
    const query = this.queryMessage(id, question);
    const frame = Buffer.allocUnsafe(query.length + 2);
    frame.writeUInt16BE(query.length, 0);
    query.copy(frame, 2);
    let buffered: Buffer = Buffer.alloc(0);
    let finished = false;
    const finish = (result: UpstreamResult) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      done(result);
    };
    const fail = () => {
      if (finished) return;
      this.stats.errors++;
      finish(NETWORK);
    };
    const socket = net.connect({ host: server.host, port: server.port });
    const timer = setTimeout(() => {
      this.stats.timeouts++;
      finish(TIMEOUT);
    }, timeoutMs);
    socket.on('error', fail);
    socket.on('close', fail);
    socket.on('connect', () => socket.write(frame));
    socket.on('data', (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      if (buffered.length < 2) return;
      const len = buffered.readUInt16BE(0);
      if (buffered.length < len + 2) return;
      const msg = Buffer.from(buffered.subarray(2, len + 2));
      const rcode =
        checkAnswer(msg, { address: server.host, port: server.port }, server, id, question.question) === 'ok'
          ? answerRcode(msg)
          : -1;
      if (rcode < 0) {
        this.stats.mismatched++;
        fail();
        return;
      }
      if (rcode === SERVFAIL) this.stats.servfails++;
      finish({ kind: 'answer', message: msg, rcode });
    });
    return () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
    };
  }
}

/** The EDNS(0) payload size we advertise upstream, bytes. */
export const UPSTREAM_PAYLOAD = MAX_UDP_PAYLOAD;

/** Counts one answer's round trip in its server's latency bucket. */
function recordLatency(state: ServerState, rttMs: number): void {
  let i = 0;
  while (i < UPSTREAM_LATENCY_BOUNDS_MS.length && rttMs > (UPSTREAM_LATENCY_BOUNDS_MS[i] as number)) i++;
  state.latencyCounts[i] = (state.latencyCounts[i] as number) + 1;
  state.latencySumMs += rttMs;
}

/** The key of `server`'s port slot and state: `host|port`. */
function serverKey(server: UpstreamServer): string {
  return `${server.host}|${server.port}`;
}

function newState(server: UpstreamServer): ServerState {
  return {
    server,
    key: serverKey(server),
    failures: 0,
    healthy: true,
    sampled: false,
    srtt: 0,
    rttvar: 0,
    probing: false,
    latencyCounts: new Float64Array(UPSTREAM_LATENCY_BOUNDS_MS.length + 1),
    latencySumMs: 0,
  };
}

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
