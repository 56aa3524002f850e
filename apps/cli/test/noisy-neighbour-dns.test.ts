/**
 * Noisy neighbour, DNS side (issue 30 "The suite proves it, not a probe"; docs/security.md
 * "Availability under hostile clients and heavy use"): while one customer's location floods a
 * real `cordon serve` over UDP with uncached names (each one an upstream query), from sixteen
 * addresses of its location (in sixteen /24s) at a rate the per-location limit (default 5,000/s)
 * lets through, another customer's queries — cached, blocked and uncached — are all answered, 99 % of
 * them within {@link P99_MS}. Settings are the defaults (rate limits on). The flood and the
 * victim's sampler each run on a thread of their own, so neither's timing is the test thread's.
 */
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  addCustomer,
  addMsp,
  askUdp,
  BLOCK_A,
  buildQuery,
  LONG,
  ok,
  quantile,
  type ScriptedUpstream,
  type ServeUnderTest,
  startScriptedUpstream,
  startServe,
  UPSTREAM_A,
} from './helpers/serve-load.ts';

/** How long the flood lasts, ms. */
const FLOOD_MS = LONG ? 120_000 : 10_000;
/** The flood's rate, queries per second in all (CORDON_FLOOD_QPS overrides it). */
const FLOOD_PER_SECOND = Number(process.env.CORDON_FLOOD_QPS ?? 2_000);
/** Flooding sources: 127.1.N.1 for N < 16, each in a /24 of its own. */
const FLOOD_SOURCES = 16;
/** One victim query every this many ms. */
const SAMPLE_EVERY_MS = 10;
/**
 * The promise: the victim's p99 within this many ms. Measured here: 19 ms on a quiet machine and
 * 54 ms at a load average of 6.5 on 2 cores (every thread of the process waits for a core alike);
 * 223 ms at a load average of 9. A flood the resolving thread cannot keep up with queues every
 * customer's query alike (p99 810 ms at 8,500 queries/s here, 5,000/s of them let through by the
 * per-location limit).
 */
const P99_MS = 250;

/**
 * The flood, on a thread of its own: every 10 ms, `perTick` A queries for names never asked
 * before, round-robin over the sources; counts the answers; on `stop` posts `{ sent, answered }`.
 */
const FLOOD = `
const { parentPort, workerData } = require('node:worker_threads');
const dgram = require('node:dgram');
const { port, sources, perTick } = workerData;
let sent = 0, answered = 0, n = 0, stopping = false;
function query(id, name) {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')]));
  const h = Buffer.alloc(12);
  h.writeUInt16BE(id, 0); h.writeUInt16BE(0x0100, 2); h.writeUInt16BE(1, 4);
  return Buffer.concat([h, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
}
const sockets = sources.map((address) => {
  const s = dgram.createSocket({ type: 'udp4', recvBufferSize: 4 << 20 });
  s.on('message', () => answered++);
  s.on('error', () => {});
  s.bind(0, address);
  return s;
});
parentPort.on('message', () => { stopping = true; });
const timer = setInterval(() => {
  if (stopping) {
    clearInterval(timer);
    setTimeout(() => { parentPort.postMessage({ sent, answered }); for (const s of sockets) s.close(); }, 1000);
    return;
  }
  for (let i = 0; i < perTick; i++, n++) {
    sockets[n % sockets.length].send(query(n & 0xffff, 'f' + n + '.flood.example'), port, '127.0.0.1');
    sent++;
  }
}, 10);
`;

/**
 * The victim's sampler, on a thread of its own: one A query every `everyMs` from 127.0.0.1, in
 * turn a cached name, a blocked name and a name never asked; until told `stop`, then (after 3 s
 * for stragglers) posts each query's round trip in ms and whether the answer was right (null: none).
 */
const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
const dgram = require('node:dgram');
const { port, everyMs, upstreamA, blockA } = workerData;
const socket = dgram.createSocket('udp4');
const sent = new Map();
const results = [];
let stopping = false;
function query(id, name) {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')]));
  const h = Buffer.alloc(12);
  h.writeUInt16BE(id, 0); h.writeUInt16BE(0x0100, 2); h.writeUInt16BE(1, 4);
  return Buffer.concat([h, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
}
socket.on('message', (m) => {
  const at = performance.now();
  const i = sent.get(m.readUInt16BE(0));
  if (i === undefined) return;
  sent.delete(m.readUInt16BE(0));
  // The A record's address: the last four bytes of a one-answer reply.
  const a = m.readUInt16BE(6) === 1 ? [...m.subarray(m.length - 4)].join('.') : '';
  results[i] = { ms: at - results[i].at, right: a === results[i].want, kind: i % 3 };
});
parentPort.on('message', () => { stopping = true; });
function tick(i) {
  if (stopping) {
    setTimeout(() => {
      for (const j of sent.values()) results[j] = null;
      parentPort.postMessage(results);
      socket.close();
    }, 3000);
    return;
  }
  const kind = i % 3;
  const name = kind === 0 ? 'www.victim.example' : kind === 1 ? 'ads.blocked.example' : 'v' + i + '.victim.example';
  const id = (i % 65535) + 1;
  sent.set(id, i);
  results[i] = { at: performance.now(), want: kind === 1 ? blockA : upstreamA };
  socket.send(query(id, name), port, '127.0.0.1');
  setTimeout(() => tick(i + 1), everyMs);
}
socket.bind(0, '127.0.0.1', () => tick(0));
`;

/** Runs `code` on a worker with `workerData`; `stop()` tells it to stop and resolves to what it posts. */
function startThread<T>(code: string, workerData: unknown): { stop(): Promise<T> } {
  const worker = new Worker(code, { eval: true, workerData });
  const result = new Promise<T>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const r = await result;
      await worker.terminate();
      return r;
    },
  };
}

let upstream: ScriptedUpstream;
let serve: ServeUnderTest;

beforeAll(async () => {
  upstream = await startScriptedUpstream(new Set(['www.victim.example']));
  serve = await startServe(upstream.port);
  const msp = await addMsp(serve.admin, 'Shared MSP');
  await addCustomer(serve.admin, msp, 'Noisy', ['127.1.0.0/20']);
  const victim = await addCustomer(serve.admin, msp, 'Victim', ['127.0.0.1/32']);
  await ok(serve.admin, 'POST', `/policies/${victim.policyId}/domains/block`, {
    domain: 'blocked.example',
    include_subdomains: true,
  });
  const since = Date.now();
  while ((await askUdp(serve.dnsPort, buildQuery(1, 'ads.blocked.example')))?.reply?.a[0] !== BLOCK_A) {
    if (Date.now() - since > 10_000) throw new Error('blocked.example not blocked within 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  // The noisy location is served too (not REFUSED), and the victim's cached name is cached.
  expect((await askUdp(serve.dnsPort, buildQuery(2, 'warm.flood.example'), '127.1.3.1'))?.reply?.a).toEqual([
    UPSTREAM_A,
  ]);
  expect((await askUdp(serve.dnsPort, buildQuery(3, 'www.victim.example')))?.reply?.a).toEqual([UPSTREAM_A]);
}, 120_000);

afterAll(async () => {
  await serve?.stop();
  await upstream?.close();
});

it(
  `answers another customer's queries with p99 ≤ ${P99_MS} ms while one customer floods ${FLOOD_PER_SECOND} uncached queries/s`,
  async () => {
    const flood = startThread<{ sent: number; answered: number }>(FLOOD, {
      port: serve.dnsPort,
      sources: Array.from({ length: FLOOD_SOURCES }, (_, i) => `127.1.${i}.1`),
      perTick: FLOOD_PER_SECOND / 100,
    });
    // The flood first reaches its pace.
    await new Promise((r) => setTimeout(r, 1_000));
    const sampler = startThread<Array<{ ms: number; right: boolean; kind: number } | null>>(SAMPLER, {
      port: serve.dnsPort,
      everyMs: SAMPLE_EVERY_MS,
      upstreamA: UPSTREAM_A,
      blockA: BLOCK_A,
    });
    await new Promise((r) => setTimeout(r, FLOOD_MS));
    const [results, flooded] = await Promise.all([sampler.stop(), flood.stop()]);
    const answered = results.filter((r): r is { ms: number; right: boolean; kind: number } => r !== null);
    const latencies = answered.map((r) => r.ms);
    const summary = {
      flood: { ...flooded, perSecond: Math.round(flooded.sent / ((FLOOD_MS + 1_000) / 1000)) },
      upstreamAnswered: upstream.answered(),
      samples: results.length,
      unanswered: results.length - answered.length,
      wrong: answered.filter((r) => !r.right).length,
      p50: Math.round(quantile(latencies, 0.5)),
      p99: Math.round(quantile(latencies, 0.99)),
      max: Math.round(Math.max(...latencies)),
      /** p99 of the cached, the blocked and the uncached name, ms. */
      p99ByKind: [0, 1, 2].map((k) =>
        Math.round(
          quantile(
            answered.filter((r) => r.kind === k).map((r) => r.ms),
            0.99,
          ),
        ),
      ),
    };
    console.info('noisy neighbour', JSON.stringify(summary));
    const text = JSON.stringify(summary);
    expect(serve.alive(), `${text}\n${serve.postmortem()}`).toBe(true);
    // The flood was real: most of it went through the limiter and was answered.
    expect(flooded.answered / flooded.sent, text).toBeGreaterThan(0.9);
    expect(results.length, text).toBeGreaterThan(FLOOD_MS / SAMPLE_EVERY_MS / 3);
    expect(summary.unanswered, text).toBe(0);
    expect(summary.wrong, text).toBe(0);
    expect(summary.p99, text).toBeLessThanOrEqual(P99_MS);
  },
  FLOOD_MS + 60_000,
);
