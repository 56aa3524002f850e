import net from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ResolverCounters } from '../src/metrics.ts';
import type { Exchange } from '../src/transport/exchange.ts';
import { startTcpServer, type TcpOptions, type TcpServer } from '../src/transport/tcp.ts';

const logger = pino({ level: 'silent' });

/** A 12-byte-header query frame (length prefix included) with this id; the body is padding. */
function frame(id: number, size = 30): Buffer {
  const out = Buffer.alloc(size + 2);
  out.writeUInt16BE(size, 0);
  if (size >= 2) out.writeUInt16BE(id, 2);
  return out;
}

/** An exchange answering every query at once with `size` bytes echoing its id. */
function echo(size: number, calls = { n: 0 }): Exchange {
  return (raw) => {
    calls.n++;
    const out = Buffer.alloc(size);
    raw.copy(out, 0, 0, 2);
    return out;
  };
}

/** A raw DNS-over-TCP client: frames it received (by id), and when it closed. */
interface Client {
  socket: net.Socket;
  ids: number[];
  closed: Promise<number>;
  /** Resolves with the answer's id once a frame with `id` arrived. */
  answer(id: number, ms?: number): Promise<void>;
}

function connect(port: number, localAddress = '127.0.0.1'): Promise<Client> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect({ host: '127.0.0.1', port, localAddress });
    const ids: number[] = [];
    let buf = Buffer.alloc(0);
    const waiters = new Set<() => void>();
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= buf.readUInt16BE(0) + 2) {
        ids.push(buf.readUInt16BE(2));
        buf = buf.subarray(buf.readUInt16BE(0) + 2);
      }
      for (const w of waiters) w();
    });
    socket.on('error', () => {});
    const closed = new Promise<number>((r) => socket.once('close', () => r(Date.now() - started)));
    const answer = (id: number, ms = 1000) =>
      new Promise<void>((res, rej) => {
        const check = () => {
          if (!ids.includes(id)) return;
          waiters.delete(check);
          clearTimeout(timer);
          res();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          rej(new Error(`no answer ${id} within ${ms} ms`));
        }, ms);
        waiters.add(check);
        check();
      });
    socket.once('connect', () => resolve({ socket, ids, closed, answer }));
    socket.once('error', reject);
  });
}

/** Polls `check` until true or `ms` pass; throws on timeout. */
async function within(ms: number, check: () => boolean): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`not true within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Resolves 'closed' when the socket closes within `ms`, else 'open'. */
const closedWithin = (c: Client, ms: number) =>
  Promise.race([c.closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('open'), ms))]);

describe('TCP transport limits (RFC 7766 §6.2)', () => {
  let server: TcpServer | undefined;
  const clients: Client[] = [];
  const start = async (exchange: Exchange, opts: TcpOptions, counters = new ResolverCounters()) => {
    server = await startTcpServer('127.0.0.1', 0, exchange, logger, opts, counters);
    return { port: server.address.port, counters };
  };
  const open = async (port: number, localAddress?: string) => {
    const c = await connect(port, localAddress);
    clients.push(c);
    return c;
  };

  afterEach(async () => {
    for (const c of clients.splice(0)) c.socket.destroy();
    await server?.close();
    server = undefined;
  });

  it('pauses a client that never reads its answers, bounds its buffered output, closes it, and keeps serving others', async () => {
    const calls = { n: 0 };
    const { port, counters } = await start(echo(512, calls), { writeTimeoutMs: 400 });
    const hog = await open(port);
    hog.socket.pause(); // never reads
    const queries = 100_000; // 51 MB of answers if all were produced
    const burst = Buffer.concat(Array.from({ length: queries }, (_, i) => frame(i & 0xffff)));
    hog.socket.write(burst);

    await within(5000, () => counters.tcpBackpressurePauses >= 1);
    const other = await open(port);
    other.socket.write(frame(7));
    await other.answer(7, 500); // still answered while the hog is held

    await within(5000, () => counters.tcpStalledClosed === 1);
    hog.socket.resume(); // reads what reached its kernel buffer, then sees the reset
    expect(await closedWithin(hog, 2000)).toBe('closed');
    expect(hog.ids.length).toBeLessThan(queries / 2);
    // Reading stopped once output backed up: far fewer queries were even looked at, and the
    // server never buffered more than about one high-water mark (16 KiB) plus a frame.
    expect(calls.n).toBeLessThan(queries / 2);
    expect(counters.tcpPeakWriteBuffer).toBeLessThan(64 * 1024);
    await within(1000, () => server?.connections === 1); // the other client's
  });

  it('closes a slow-drip connection whose message misses its deadline', async () => {
    const { port, counters } = await start(echo(40), { messageTimeoutMs: 300, idleMs: 10_000 });
    const drip = await open(port);
    const message = frame(1);
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < message.length && !drip.socket.destroyed) drip.socket.write(message.subarray(sent, ++sent));
    }, 40);
    try {
      const ms = await Promise.race([drip.closed, new Promise<number>((r) => setTimeout(() => r(-1), 3000))]);
      expect(ms).toBeGreaterThan(250);
      expect(ms).toBeLessThan(1500);
    } finally {
      clearInterval(timer);
    }
    expect(counters.tcpDeadlineClosed).toBe(1);
    expect(drip.ids).toEqual([]);
  });

  it('closes an idle connection after the idle timeout, and not one that keeps asking', async () => {
    const { port, counters } = await start(echo(40), { idleMs: 300 });
    const idle = await open(port);
    const busy = await open(port);
    idle.socket.write(frame(1));
    await idle.answer(1);
    for (let i = 0; i < 8; i++) {
      busy.socket.write(frame(100 + i));
      await busy.answer(100 + i);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await closedWithin(idle, 1)).toBe('closed');
    expect(busy.socket.destroyed).toBe(false);
    expect(counters.tcpIdleClosed).toBe(1);
  });

  it('refuses connections over the per-source cap while the others, and other sources, still work', async () => {
    const { port, counters } = await start(echo(40), { maxConnectionsPerSource: 3 });
    const kept: Client[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await open(port);
      c.socket.write(frame(i));
      await c.answer(i); // accepted and served before the next one connects
      kept.push(c);
    }
    const extra = [await open(port), await open(port)];
    for (const c of extra) expect(await closedWithin(c, 1000)).toBe('closed');
    expect(counters.tcpRefused).toBe(2);
    for (const [i, c] of kept.entries()) {
      c.socket.write(frame(50 + i));
      await c.answer(50 + i);
    }
    const elsewhere = await open(port, '127.0.0.2');
    elsewhere.socket.write(frame(99));
    await elsewhere.answer(99);
    // A closed connection frees its place.
    kept[0]!.socket.destroy();
    await within(1000, () => server?.connections === 3);
    const again = await open(port);
    again.socket.write(frame(98));
    await again.answer(98);
  });

  it('refuses connections over the global cap', async () => {
    const { port, counters } = await start(echo(40), { maxConnections: 3 });
    for (const [i, from] of ['127.0.0.1', '127.0.0.2', '127.0.0.3'].entries()) {
      const c = await open(port, from);
      c.socket.write(frame(i));
      await c.answer(i);
    }
    const fourth = await open(port, '127.0.0.4');
    expect(await closedWithin(fourth, 1000)).toBe('closed');
    expect(counters.tcpRefused).toBe(1);
  });

  it('closes, unanswered, a connection that sends a frame shorter than a DNS header', async () => {
    const calls = { n: 0 };
    const { port, counters } = await start(echo(40, calls), {});
    for (const size of [0, 1, 11]) {
      const c = await open(port);
      c.socket.write(frame(1, size));
      expect(await closedWithin(c, 1000)).toBe('closed');
      expect(c.ids).toEqual([]);
    }
    expect(calls.n).toBe(0);
    expect(counters.tcpMalformedClosed).toBe(3);
  });

  it('bounds pipelining: at most maxInFlight queries of one connection are resolved at once', async () => {
    const held: Array<() => void> = [];
    const exchange: Exchange = (raw) =>
      new Promise((resolve) => {
        held.push(() => resolve(Buffer.from(raw.subarray(0, 12))));
      });
    const { port } = await start(exchange, { maxInFlight: 4 });
    const c = await open(port);
    c.socket.write(Buffer.concat(Array.from({ length: 20 }, (_, i) => frame(i))));
    await within(1000, () => held.length === 4);
    await new Promise((r) => setTimeout(r, 100));
    expect(held.length).toBe(4);
    // Releasing answers lets the rest in, a few at a time.
    let released = 0;
    while (released < 20) {
      await within(1000, () => held.length > released);
      held[released++]!();
    }
    await within(1000, () => c.ids.length === 20);
    expect([...c.ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });
});
