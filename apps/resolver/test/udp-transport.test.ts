import dgram from 'node:dgram';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { loadUdpBatch, udpBatchUnavailableReason } from '@cordon/udp-batch';
import dnsPacket from 'dns-packet';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { allocResponse, Flag, Rcode } from '../src/dns/message.ts';
import { ResolverCounters } from '../src/metrics.ts';
import type { PipelineResponse } from '../src/request.ts';
import { createExchange, type Exchange } from '../src/transport/exchange.ts';
import { MAX_UDP_QUERY, startUdpServer, type UdpBackend, type UdpServer } from '../src/transport/udp.ts';

const logger = pino({ level: 'silent' });
const built = loadUdpBatch() !== null;
if (!built) {
  // Printed so a run without a compiler says why the batch half did not run.
  console.warn(`udp transport: batch backend not built, its tests are skipped (${udpBatchUnavailableReason()})`);
}

/** A query-shaped datagram: a 2-byte id, then `body`. */
function datagram(id: number, body = 'q'): Buffer {
  const b = Buffer.alloc(2 + body.length);
  b.writeUInt16BE(id, 0);
  b.write(body, 2, 'latin1');
  return b;
}

/**
 * Sends `msgs` from one socket of `type` to `port` on `host` and collects replies for `waitMs`.
 * Returns the replies in arrival order and the client's own address as the server should see it.
 */
async function exchangeMany(
  host: string,
  port: number,
  msgs: Buffer[],
  waitMs: number,
  type: 'udp4' | 'udp6' = 'udp4',
  from?: string,
): Promise<Buffer[]> {
  const socket = dgram.createSocket(type);
  const replies: Buffer[] = [];
  socket.on('message', (m) => replies.push(m));
  await new Promise<void>((r) => socket.bind(0, from, () => r()));
  for (const m of msgs) socket.send(m, port, host);
  await new Promise((r) => setTimeout(r, waitMs));
  socket.close();
  return replies;
}

/** Waits until `count` replies arrived or `timeoutMs` passed. */
async function collect(host: string, port: number, msgs: Buffer[], count: number, timeoutMs = 3000): Promise<Buffer[]> {
  const socket = dgram.createSocket('udp4');
  const replies: Buffer[] = [];
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  // Client and server share this event loop: a whole burst is answered before the client reads.
  socket.setRecvBufferSize(4 * 1024 * 1024);
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    socket.on('message', (m) => {
      replies.push(m);
      if (replies.length >= count) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  for (const m of msgs) socket.send(m, port, host);
  await done;
  socket.close();
  return replies;
}

const backends: UdpBackend[] = ['dgram', 'batch'];

describe.each(backends)('UDP transport (%s backend)', (backend) => {
  const servers: UdpServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  const start = async (
    exchange: Exchange,
    host = '127.0.0.1',
    extra: { rrlRate?: number; reusePort?: boolean; port?: number } = {},
    counters = new ResolverCounters(),
  ) => {
    const server = await startUdpServer(
      host,
      extra.port ?? 0,
      exchange,
      logger,
      {
        backend,
        rrl: { ratePerSecond: extra.rrlRate ?? 0, slip: 2 },
        ...(extra.reusePort ? { reusePort: true } : {}),
      },
      counters,
    );
    servers.push(server);
    return server;
  };

  it.skipIf(backend === 'batch' && !built)(
    'answers synchronously to the sender, with its canonical address',
    async () => {
      const seen: string[] = [];
      const server = await start((raw, clientIp, protocol) => {
        seen.push(`${clientIp}/${protocol}`);
        return Buffer.concat([raw, Buffer.from('!')]);
      });
      expect(server.backend).toBe(backend);
      const [reply] = await collect('127.0.0.1', server.address.port, [datagram(7, 'hello')], 1);
      expect(reply?.toString('latin1', 2)).toBe('hello!');
      expect(seen).toEqual(['127.0.0.1/udp']);
    },
  );

  it.skipIf(backend === 'batch' && !built)('sends a later (promised) answer, and nothing for null', async () => {
    const server = await start((raw) => {
      const id = raw.readUInt16BE(0);
      if (id === 1) return null;
      return new Promise<Buffer>((r) => setTimeout(() => r(Buffer.from(raw)), 20));
    });
    const replies = await exchangeMany('127.0.0.1', server.address.port, [datagram(1), datagram(2)], 300);
    expect(replies.map((r) => r.readUInt16BE(0))).toEqual([2]);
  });

  it.skipIf(backend === 'batch' && !built)(
    'answers every datagram of a burst, sync and async, long answers included',
    async () => {
      const counters = new ResolverCounters();
      const server = await start(
        (raw) => {
          const id = raw.readUInt16BE(0);
          // Every 3rd answer comes later; every 5th is longer than an answer slot (4000 bytes).
          const out = Buffer.alloc(id % 5 === 0 ? 4000 : 40, id & 0xff);
          out.writeUInt16BE(id, 0);
          return id % 3 === 0 ? Promise.resolve(out) : out;
        },
        '127.0.0.1',
        {},
        counters,
      );
      const burst = Array.from({ length: 300 }, (_, i) => datagram(i));
      const replies = await collect('127.0.0.1', server.address.port, burst, 300, 5000);
      const ids = replies.map((r) => r.readUInt16BE(0)).sort((a, b) => a - b);
      expect(ids).toEqual(burst.map((_, i) => i));
      for (const r of replies) expect(r.length).toBe(r.readUInt16BE(0) % 5 === 0 ? 4000 : 40);
      const { batches, sendErrors } = server.stats();
      expect(sendErrors).toBe(0);
      if (backend === 'dgram') expect(batches).toBe(0);
      // Several datagrams per receive call: the burst arrives faster than it is drained.
      else {
        expect(batches).toBeGreaterThan(0);
        expect(batches).toBeLessThan(300);
      }
    },
  );

  it.skipIf(backend === 'batch' && !built)(
    'answers a burst of real responses — in place, truncated and later ones — each whole and to its own query',
    async () => {
      // Responses built by allocResponse: under the batch backend a synchronous one is written in its
      // slot of the answer arena; a truncated one replaces it (a second response); one answered
      // later must leave with its own bytes though its slot was reused meanwhile.
      const counters = new ResolverCounters();
      const exchange = createExchange(
        (ctx) => {
          const id = ctx.request.id;
          const respond = () => {
            // Every 4th answer carries 600 body bytes: over 512 without EDNS, so it leaves truncated.
            const body = id % 4 === 0 ? 600 : 8;
            const wire = allocResponse(ctx.request, Rcode.NOERROR, 0, 0, 0, 0, body);
            wire.fill(id & 0xff, ctx.request.questionEnd);
            return { wire, rcode: Rcode.NOERROR, source: 'synthesized', context: ctx } satisfies PipelineResponse;
          };
          // Every 3rd built later; every 3rd after that built now but answered later, once the
          // slot it was built in has served later batches.
          if (id % 3 === 0) return new Promise<PipelineResponse>((r) => setTimeout(() => r(respond()), 5));
          if (id % 3 === 1) {
            const now = respond();
            return new Promise<PipelineResponse>((r) => setTimeout(() => r(now), 30));
          }
          return respond();
        },
        counters,
        logger,
      );
      const server = await start((raw, clientIp) => exchange(raw, clientIp, 'udp'), '127.0.0.1', {}, counters);
      const queries = Array.from({ length: 200 }, (_, id) =>
        dnsPacket.encode({
          type: 'query',
          id,
          flags: dnsPacket.RECURSION_DESIRED,
          questions: [{ type: 'A', name: `q${id}.example` }],
        }),
      );
      const replies = await collect('127.0.0.1', server.address.port, queries, 200, 5000);
      expect(replies.map((r) => r.readUInt16BE(0)).sort((a, b) => a - b)).toEqual(queries.map((_, id) => id));
      for (const r of replies) {
        const id = r.readUInt16BE(0);
        const question = queries[id]!.subarray(12);
        expect(r.subarray(12, 12 + question.length).equals(question), `question of ${id}`).toBe(true);
        const truncated = (r.readUInt16BE(2) & Flag.TC) !== 0;
        expect(truncated, `TC of ${id}`).toBe(id % 4 === 0);
        const body = r.subarray(12 + question.length);
        expect(body.length, `body of ${id}`).toBe(truncated ? 0 : 8);
        expect(
          body.every((b) => b === (id & 0xff)),
          `body bytes of ${id}`,
        ).toBe(true);
      }
      expect(counters.truncated).toBe(50);
    },
  );

  it.skipIf(backend === 'batch' && !built)(
    `drops a datagram longer than ${MAX_UDP_QUERY} bytes, counted as malformed`,
    async () => {
      const counters = new ResolverCounters();
      let calls = 0;
      const server = await start(
        (raw) => {
          calls++;
          return raw.subarray(0, 2);
        },
        '127.0.0.1',
        {},
        counters,
      );
      const big = Buffer.alloc(MAX_UDP_QUERY + 1);
      big.writeUInt16BE(9, 0);
      const replies = await exchangeMany('127.0.0.1', server.address.port, [big, datagram(10)], 300);
      expect(replies.map((r) => r.readUInt16BE(0))).toEqual([10]);
      expect(calls).toBe(1);
      expect(counters.malformed).toBe(1);
    },
  );

  it.skipIf(backend === 'batch' && !built)(
    'serves IPv6, and IPv4 clients of a dual-stack socket by their IPv4 address',
    async () => {
      const seen: string[] = [];
      const server = await start((raw, clientIp) => {
        seen.push(clientIp);
        return Buffer.from(raw);
      }, '::');
      const v6 = await exchangeMany('::1', server.address.port, [datagram(1)], 200, 'udp6', '::1');
      const v4 = await exchangeMany('127.0.0.1', server.address.port, [datagram(2)], 200, 'udp4', '127.0.0.1');
      expect(v6.map((r) => r.readUInt16BE(0))).toEqual([1]);
      expect(v4.map((r) => r.readUInt16BE(0))).toEqual([2]);
      expect(seen).toEqual(['::1', '127.0.0.1']);
    },
  );

  it.skipIf(backend === 'batch' && !built)('charges the response-rate limiter before the exchange', async () => {
    const counters = new ResolverCounters();
    let calls = 0;
    const server = await start(
      (raw) => {
        calls++;
        return Buffer.from(raw);
      },
      '127.0.0.1',
      { rrlRate: 5 },
      counters,
    );
    // Not DNS queries: a slip cannot decode them, so every limited one is dropped.
    const burst = Array.from({ length: 40 }, (_, i) => datagram(i));
    const replies = await exchangeMany('127.0.0.1', server.address.port, burst, 300);
    expect(calls).toBeLessThan(40);
    expect(replies.length).toBe(calls);
    expect(counters.rateLimited).toBe(40 - calls);
  });

  it.skipIf(backend === 'batch' && !built)('rejects with EADDRINUSE when the port is taken', async () => {
    const first = await start(() => null);
    await expect(start(() => null, '127.0.0.1', { port: first.address.port })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
  });

  if (backend === 'batch') {
    it.skipIf(!built)('survives a thread ending with its socket still open (the addon closes it first)', async () => {
      const addon = path.join(
        path.dirname(createRequire(import.meta.url).resolve('@cordon/udp-batch/package.json')),
        'build/Release/udp_batch.node',
      );
      const code = `
        const b = require(${JSON.stringify(addon)});
        const { parentPort } = require('node:worker_threads');
        const h = b.open('127.0.0.1', 0, 0, false, Buffer.alloc(2048), Buffer.alloc(1024), 512, 256,
          new Int32Array(8), Buffer.alloc(80), () => {});
        parentPort.postMessage(b.info(h).port);`;
      for (let i = 0; i < 2; i++) {
        const worker = new Worker(code, { eval: true });
        const port = await new Promise<number>((resolve) => worker.once('message', resolve));
        await worker.terminate();
        // The port is free again: the socket was closed when the thread's environment went away.
        const again = await start(() => null, '127.0.0.1', { port });
        expect(again.address.port).toBe(port);
      }
    });

    it.skipIf(!built)('shares a port between sockets with reusePort (the kernel spreads the datagrams)', async () => {
      const hits = [0, 0];
      const a = await start(
        (raw) => {
          hits[0] = (hits[0] ?? 0) + 1;
          return Buffer.from(raw);
        },
        '127.0.0.1',
        { reusePort: true },
      );
      await start(
        (raw) => {
          hits[1] = (hits[1] ?? 0) + 1;
          return Buffer.from(raw);
        },
        '127.0.0.1',
        { reusePort: true, port: a.address.port },
      );
      // The kernel picks the socket by a hash of the source: many client sockets reach both.
      let answered = 0;
      for (let i = 0; i < 32; i++) {
        answered += (await collect('127.0.0.1', a.address.port, [datagram(i)], 1, 1000)).length;
      }
      expect(answered).toBe(32);
      expect(hits[0]).toBeGreaterThan(0);
      expect(hits[1]).toBeGreaterThan(0);
    });
  } else {
    it('refuses reusePort without the batch backend, with a clear error', async () => {
      await expect(start(() => null, '127.0.0.1', { reusePort: true })).rejects.toThrow(/SO_REUSEPORT.*batch backend/);
    });
  }
});
