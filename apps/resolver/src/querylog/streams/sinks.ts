import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { hostname } from 'node:os';
import tls from 'node:tls';
import {
  OUTBOUND_FAILURE,
  type OutboundAddress,
  OutboundError,
  pinnedLookup,
  resolveOutbound,
} from '@cordon/shared/outbound';
import {
  controlFrame,
  DNSTAP_CONTENT_TYPE,
  dnstapFrame,
  FSTRM,
  type StreamRow,
  streamRecord,
  syslogFrame,
} from './encode.ts';
import { type StreamTarget, type TenantSet, targetLabel } from './targets.ts';

/** One sink's counters (docs/operations.md "Monitoring": `cordon_dns_stream_*`). */
export interface StreamStats {
  /** {@link targetLabel}: kind and address, no token. */
  readonly target: string;
  readonly kind: StreamTarget['kind'];
  /** Rows handed to the peer (written to its socket, or in a batch it answered 2xx to). */
  sent: number;
  /** Rows dropped: the buffer was full (slow or dead peer), or a batch was refused past its retries. */
  dropped: number;
  /** 1 while connected (dnstap: handshake done; NDJSON: the last POST succeeded), else 0. */
  connected: number;
}

/**
 * Default rows a sink buffers at most before dropping (`CORDON_LOG_STREAM_BUFFER`): the query log's
 * own memory bound (`maxBuffer`), since the writer thread, which writes when a core is free, receives that many at once
 * after a saturated second (bench/README.md "Query-log streaming"); ≈ 10 MB of dnstap frames.
 */
export const STREAM_BUFFER_ROWS = 50_000;
/** Reconnect backoff, ms: doubles from the first to the last. */
const BACKOFF_MS = [250, 10_000] as const;
/** Longest a row waits before a flush, ms. */
const FLUSH_MS = 200;
/** NDJSON rows per POST at most. */
const NDJSON_BATCH_ROWS = 1000;
/** Longest an NDJSON POST or a connection attempt may take, ms. */
const REQUEST_TIMEOUT_MS = 10_000;

/** Events a sink reports to its owner (the writer thread logs them on the resolving thread). */
export type StreamLog = (message: string) => void;

/**
 * A bounded, asynchronous sink: `push` encodes a row into the buffer, or drops and counts it when
 * `maxRows` wait already (default {@link STREAM_BUFFER_ROWS}); the peer is fed from timers and socket events, never
 * from `push` (docs/decisions.md "Query-log streaming").
 */
export abstract class StreamSink {
  readonly stats: StreamStats;
  protected readonly buffer: Buffer[] = [];
  protected closed = false;
  private backoff: number = BACKOFF_MS[0];
  private retryTimer: NodeJS.Timeout | null = null;
  /** When rows last reached the peer (epoch ms; 0: never), for an MSP's destination's status. */
  lastDeliveredAt = 0;
  /**
   * The last failure as its MSP may see it (`HTTP <status>` when the receiver answered, else
   * {@link OUTBOUND_FAILURE} whatever the cause: no probing of internal addresses through it,
   * docs/security.md "Outbound requests"), and when (epoch ms); the detail goes to the operator's log.
   */
  lastError: string | null = null;
  lastErrorAt = 0;

  constructor(
    target: StreamTarget,
    protected readonly log: StreamLog,
    protected readonly maxRows: number = STREAM_BUFFER_ROWS,
  ) {
    this.stats = { target: targetLabel(target), kind: target.kind, sent: 0, dropped: 0, connected: 0 };
  }

  /** The bytes one row becomes for this peer. */
  protected abstract encode(row: StreamRow): Buffer;
  /** Starts a connection (or a POST); calls {@link retryLater} when it fails. */
  protected abstract start(): void;
  /** Ends the connection; `graceful` lets the peer see the end of the stream. */
  protected abstract stop(graceful: boolean): Promise<void>;

  /** Buffers `row` encoded, or drops and counts it (buffer full, closed, or a row it cannot encode). Never throws. */
  push(row: StreamRow): void {
    if (this.closed || this.buffer.length >= this.maxRows) {
      this.stats.dropped++;
      return;
    }
    try {
      this.buffer.push(this.encode(row));
    } catch (err) {
      // A stream's bug must not end the writer thread (and with it the query log).
      this.stats.dropped++;
      if (!this.encodeFailureLogged)
        this.log(`log stream ${this.stats.target}: a row cannot be encoded (${(err as Error).message}); dropped`);
      this.encodeFailureLogged = true;
    }
  }
  private encodeFailureLogged = false;

  /** Schedules {@link start} after the current backoff, doubling it; `shown` is what its MSP may see. */
  protected retryLater(why: string, shown: string = OUTBOUND_FAILURE): void {
    this.stats.connected = 0;
    this.lastError = shown;
    this.lastErrorAt = Date.now();
    if (this.closed || this.retryTimer !== null) return;
    if (this.backoff === BACKOFF_MS[0]) this.log(`log stream ${this.stats.target}: ${why}; retrying with backoff`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.start();
    }, this.backoff);
    this.retryTimer.unref();
    this.backoff = Math.min(this.backoff * 2, BACKOFF_MS[1]);
  }

  protected resetBackoff(): void {
    this.backoff = BACKOFF_MS[0];
  }

  /** Stops the sink: what is buffered is sent if the peer takes it within `graceMs`, then dropped and counted. */
  async close(graceMs: number): Promise<void> {
    const until = Date.now() + graceMs;
    while (this.buffer.length > 0 && this.stats.connected === 1 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 20));
    }
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    await this.stop(this.stats.connected === 1);
    this.stats.dropped += this.buffer.length;
    this.buffer.length = 0;
    this.stats.connected = 0;
  }
}

/**
 * A sink writing a byte stream to a socket: dnstap (Frame Streams) and syslog. Writes while the
 * socket takes them (`write` true), waits for `drain` otherwise: a peer that stops reading fills the
 * kernel's buffers, then this sink's, then rows are dropped.
 */
abstract class SocketSink extends StreamSink {
  protected socket: net.Socket | null = null;
  /** True once the stream may carry rows (connected, and for dnstap the handshake done). */
  protected ready = false;
  private waitingDrain = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    protected readonly target: StreamTarget,
    log: StreamLog,
    maxRows?: number,
  ) {
    super(target, log, maxRows);
    this.timer = setInterval(() => this.pump(), FLUSH_MS);
    this.timer.unref();
    // After the subclass's fields are set.
    setImmediate(() => this.start());
  }

  /** Opens the socket; `checked` is the outbound guard's address for an MSP's destination, else null. */
  protected abstract connect(checked: OutboundAddress | null): net.Socket;
  /** Called once connected: sends the opening (dnstap's READY) or marks the stream ready. */
  protected abstract opened(socket: net.Socket): void;

  private resolving = false;

  /** Connects; an MSP's destination's host first through the outbound guard (docs/security.md "Outbound requests"). */
  protected start(): void {
    if (this.closed || this.resolving) return;
    const tenant = tenantOf(this.target);
    if (tenant === undefined) {
      this.open(null);
      return;
    }
    this.resolving = true;
    const host = (this.target as { host: string }).host;
    resolveOutbound(host, { allow: tenant.outbound.allow }).then(
      (checked) => {
        this.resolving = false;
        if (!this.closed) this.open(checked);
      },
      (err: unknown) => {
        this.resolving = false;
        this.retryLater(err instanceof OutboundError ? err.detail : String(err));
      },
    );
  }

  private open(checked: OutboundAddress | null): void {
    let socket: net.Socket;
    try {
      socket = this.connect(checked);
    } catch (err) {
      this.retryLater((err as Error).message);
      return;
    }
    this.socket = socket;
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => {
      if (!this.ready) socket.destroy(new Error('connection timed out'));
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.ready = false;
      this.waitingDrain = false;
      this.retryLater('connection closed');
    });
    socket.on('drain', () => {
      this.waitingDrain = false;
      this.pump();
    });
    socket.once(socket instanceof tls.TLSSocket ? 'secureConnect' : 'connect', () => {
      socket.setTimeout(0);
      this.opened(socket);
    });
  }

  /** Marks the stream ready for rows and sends what waits. */
  protected becameReady(): void {
    this.ready = true;
    this.stats.connected = 1;
    this.resetBackoff();
    this.log(`log stream ${this.stats.target}: connected`);
    this.pump();
  }

  /** Writes buffered rows until the socket asks to wait. */
  protected pump(): void {
    const socket = this.socket;
    if (!this.ready || socket === null || this.waitingDrain) return;
    while (this.buffer.length > 0) {
      const n = Math.min(this.buffer.length, 256);
      const chunk = Buffer.concat(this.buffer.splice(0, n));
      const more = socket.write(chunk);
      this.stats.sent += n;
      this.lastDeliveredAt = Date.now();
      if (!more) {
        this.waitingDrain = true;
        return;
      }
    }
  }

  protected stop(_graceful: boolean): Promise<void> {
    clearInterval(this.timer);
    const socket = this.socket;
    this.socket = null;
    if (socket === null) return Promise.resolve();
    return new Promise((resolve) => {
      socket.end(() => resolve());
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 1000).unref();
    });
  }

  protected plainConnect(checked: OutboundAddress | null): net.Socket {
    const t = this.target as { path?: string; host?: string; port?: number };
    if (t.path !== undefined) return net.connect({ path: t.path });
    return net.connect({ host: t.host!, port: t.port!, ...(checked ? { lookup: pinnedLookup(checked) } : {}) });
  }
}

/**
 * dnstap over Frame Streams, bidirectional (Frame Streams protocol, "Bidirectional"): READY with the
 * content type `protobuf:dnstap.Dnstap`, the reader's ACCEPT, START, then data frames; STOP and the
 * reader's FINISH at the end. One CLIENT_RESPONSE message per row (querylog/streams/encode.ts).
 */
export class DnstapSink extends SocketSink {
  private readonly identity = Buffer.from(hostname());
  private readonly version = Buffer.from('cordon');
  private pending = Buffer.alloc(0);
  private finished: (() => void) | null = null;

  protected connect(): net.Socket {
    return this.plainConnect(null);
  }

  protected encode(row: StreamRow): Buffer {
    return dnstapFrame(row, this.identity, this.version);
  }

  protected opened(socket: net.Socket): void {
    this.pending = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => this.onControl(socket, d));
    socket.write(controlFrame(FSTRM.READY, DNSTAP_CONTENT_TYPE));
  }

  /** Reads the reader's control frames: ACCEPT (then START is sent), FINISH. */
  private onControl(socket: net.Socket, data: Buffer): void {
    this.pending = Buffer.concat([this.pending, data]);
    while (this.pending.length >= 8) {
      const esc = this.pending.readUInt32BE(0);
      const len = this.pending.readUInt32BE(4);
      if (esc !== 0 || len < 4 || len > 512) {
        socket.destroy();
        this.retryLater('the reader sent something other than a control frame');
        return;
      }
      if (this.pending.length < 8 + len) return;
      const type = this.pending.readUInt32BE(8);
      this.pending = this.pending.subarray(8 + len);
      if (type === FSTRM.ACCEPT && !this.ready) {
        socket.write(controlFrame(FSTRM.START, DNSTAP_CONTENT_TYPE));
        this.becameReady();
      } else if (type === FSTRM.FINISH) {
        this.finished?.();
      }
    }
  }

  protected override stop(graceful: boolean): Promise<void> {
    const socket = this.socket;
    if (graceful && socket !== null && this.ready) {
      socket.write(controlFrame(FSTRM.STOP));
      return new Promise<void>((resolve) => {
        this.finished = resolve;
        setTimeout(resolve, 1000).unref();
      }).then(() => super.stop(true));
    }
    return super.stop(graceful);
  }
}

/** RFC 5424 messages over TCP or TLS (RFC 5425), octet-counted (RFC 6587 §3.4.1); one message per row. */
export class SyslogSink extends SocketSink {
  private readonly host =
    hostname()
      .replace(/[^\x21-\x7e]/g, '')
      .slice(0, 255) || '-';

  protected connect(checked: OutboundAddress | null): net.Socket {
    const t = this.target as Extract<StreamTarget, { kind: 'syslog' }>;
    if (!t.tls) return this.plainConnect(checked);
    return tls.connect({
      host: t.host,
      port: t.port,
      ...(checked ? { lookup: pinnedLookup(checked) } : {}),
      ...(isIp(t.host) ? {} : { servername: t.host }),
      ...(t.ca !== undefined ? { ca: t.ca } : {}),
    });
  }

  protected encode(row: StreamRow): Buffer {
    return syslogFrame(row, this.host);
  }

  protected opened(): void {
    this.becameReady();
  }
}

function isIp(host: string): boolean {
  return net.isIP(host) !== 0;
}

/** The tenant part of an MSP's destination, undefined for the operator's. */
function tenantOf(t: StreamTarget): TenantSet | undefined {
  return t.kind === 'dnstap' ? undefined : t.tenant;
}

/** True for a loopback address (127/8, ::1, and their IPv4-mapped form). */
function isLoopback(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\./i.test(address);
}

/**
 * NDJSON batches POSTed to a URL (`Content-Type: application/x-ndjson`, one JSON record per line:
 * the shape Splunk HEC's raw endpoint and Elastic's ingest take). One POST at a time, up to
 * {@link NDJSON_BATCH_ROWS} rows; a failed POST (error, timeout, non-2xx) is retried with backoff
 * while new rows wait in the bounded buffer.
 */
export class NdjsonSink extends StreamSink {
  private inFlight: Buffer[] | null = null;
  private readonly timer: NodeJS.Timeout;
  private request: http.ClientRequest | null = null;

  constructor(
    private readonly target: Extract<StreamTarget, { kind: 'ndjson' }>,
    log: StreamLog,
    maxRows?: number,
  ) {
    super(target, log, maxRows);
    this.timer = setInterval(() => this.start(), FLUSH_MS * 5);
    this.timer.unref();
  }

  protected encode(row: StreamRow): Buffer {
    return Buffer.from(`${JSON.stringify(streamRecord(row))}\n`);
  }

  override push(row: StreamRow): void {
    super.push(row);
    if (this.buffer.length >= NDJSON_BATCH_ROWS && this.inFlight === null) this.start();
  }

  private resolving = false;

  protected start(): void {
    if (this.closed && this.inFlight === null) return;
    if (this.request !== null || this.resolving) return;
    this.inFlight ??= this.buffer.length > 0 ? this.buffer.splice(0, NDJSON_BATCH_ROWS) : null;
    const batch = this.inFlight;
    if (batch === null) return;
    const tenant = this.target.tenant;
    if (tenant === undefined) {
      this.post(batch, null);
      return;
    }
    // An MSP's destination: through the outbound guard, `http:` only to an allowed loopback address.
    const u = new URL(this.target.url);
    this.resolving = true;
    resolveOutbound(u.hostname, { allow: tenant.outbound.allow }).then(
      (checked) => {
        this.resolving = false;
        if (u.protocol === 'http:' && !isLoopback(checked.address)) {
          this.retryLater(`http:// is only allowed to an allowed loopback address, not ${checked.address}`);
        } else if (this.inFlight === batch) {
          this.post(batch, checked);
        }
      },
      (err: unknown) => {
        this.resolving = false;
        this.retryLater(err instanceof OutboundError ? err.detail : String(err));
      },
    );
  }

  /** POSTs `batch` (the rows in flight); `checked` the guard's address for an MSP's destination. */
  private post(batch: Buffer[], checked: OutboundAddress | null): void {
    const body = Buffer.concat(batch);
    const u = new URL(this.target.url);
    const client = u.protocol === 'https:' ? https : http;
    const req = client.request(u, {
      method: 'POST',
      timeout: REQUEST_TIMEOUT_MS,
      ...(checked ? { lookup: pinnedLookup(checked) } : {}),
      headers: {
        'content-type': 'application/x-ndjson',
        'content-length': body.length,
        ...(this.target.authorization !== undefined ? { authorization: this.target.authorization } : {}),
      },
      ...(this.target.ca !== undefined ? { ca: this.target.ca } : {}),
    });
    this.request = req;
    const fail = (why: string) => {
      if (this.request !== req) return;
      this.request = null;
      this.retryLater(why);
    };
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err) => fail(err.message));
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        if (this.request !== req) return;
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          this.request = null;
          this.stats.sent += batch.length;
          this.lastDeliveredAt = Date.now();
          this.inFlight = null;
          if (this.stats.connected === 0) this.log(`log stream ${this.stats.target}: delivering`);
          this.stats.connected = 1;
          this.resetBackoff();
          if (this.buffer.length >= NDJSON_BATCH_ROWS) this.start();
        } else if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
          // Refused for good (bad token, bad URL): retrying the same batch cannot help.
          this.request = null;
          this.stats.dropped += batch.length;
          this.inFlight = null;
          this.retryLater(`the receiver answered ${status}; batch dropped`, `HTTP ${status}`);
        } else {
          if (this.request !== req) return;
          this.request = null;
          this.retryLater(`the receiver answered ${status}`, `HTTP ${status}`);
        }
      });
    });
    req.end(body);
  }

  protected stop(): Promise<void> {
    clearInterval(this.timer);
    this.request?.destroy();
    this.request = null;
    if (this.inFlight !== null) this.stats.dropped += this.inFlight.length;
    this.inFlight = null;
    return Promise.resolve();
  }

  override async close(graceMs: number): Promise<void> {
    // One last POST of what waits, within the grace period.
    const until = Date.now() + graceMs;
    this.start();
    while ((this.buffer.length > 0 || this.inFlight !== null) && this.stats.connected === 1 && Date.now() < until) {
      if (this.request === null && !this.resolving) this.start();
      await new Promise((r) => setTimeout(r, 20));
    }
    await super.close(0);
  }
}

/** The sink for `target`, buffering `maxRows` rows at most (default {@link STREAM_BUFFER_ROWS}). */
export function openStreamSink(target: StreamTarget, log: StreamLog, maxRows?: number): StreamSink {
  if (target.kind === 'dnstap') return new DnstapSink(target, log, maxRows);
  if (target.kind === 'syslog') return new SyslogSink(target, log, maxRows);
  return new NdjsonSink(target, log, maxRows);
}
