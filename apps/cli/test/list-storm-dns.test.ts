/**
 * One tenant's list changes must not stop DNS for the others (issue 30; docs/security.md
 * "Availability under hostile clients and heavy use"): after one customer imported a large list,
 * another customer's storm of add+delete pairs (the incident's 808 pairs in 10 s) runs through
 * core's list service, its topics relayed to the data-plane thread as `cordon serve` relays them,
 * while a thread of its own samples DNS over loopback UDP (so the writes on this thread never delay
 * its clock). At least 99 % of the sampled queries must be answered within 100 ms, and an entry
 * added after the storm must be enforced within a second.
 */
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { type CoreDeps, lists, OPERATOR } from '@cordon/core';
import { createChangeFeed, migrateToLatest, openDatabase } from '@cordon/db';
import { startDataPlane } from '@cordon/resolver/dataplane';
import dnsPacket from 'dns-packet';
import pino from 'pino';
import { expect, it } from 'vitest';
import { startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';
import { seedTenants } from '../../resolver/test/helpers/seed.ts';

/** Entries of the large import (the probe's 60,000 scaled down; today's main still stalls on it). */
const IMPORTED = 30_000;
/** How long the storm of add+delete pairs lasts, ms. */
const STORM_MS = 6_000;
/** One add+delete pair at most every this many ms: the incident's rate (808 pairs in 10 s). */
const PAIR_EVERY_MS = 12;
/** One DNS sample every this many ms during the storm. */
const SAMPLE_EVERY_MS = 15;
/** The promise: an answer within this many ms. */
const DEADLINE_MS = 100;

/** The address of the first A record of an answer, or ''. */
function firstA(msg: Buffer): string {
  for (const r of dnsPacket.decode(msg).answers ?? []) if (r.type === 'A') return r.data;
  return '';
}

/**
 * The DNS sampler, on a thread of its own so that the storm's writes on this thread never delay
 * the timing: an A query every `everyMs` over loopback UDP, alternately for `names`, until told
 * `stop`; then, once the stragglers had 2 s, posts each query's round trip in ms (null: no answer).
 */
const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
const dgram = require('node:dgram');
const { port, names, everyMs } = workerData;
const socket = dgram.createSocket('udp4');
const sent = new Map();
const results = [];
let stopping = false;
socket.on('message', (m) => {
  const at = performance.now();
  const i = sent.get(m.readUInt16BE(0));
  if (i === undefined) return;
  sent.delete(m.readUInt16BE(0));
  results[i] = at - results[i];
});
parentPort.on('message', () => { stopping = true; });
function query(id, name) {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')]));
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2);
  header.writeUInt16BE(1, 4);
  return Buffer.concat([header, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
}
function tick(i) {
  if (stopping) {
    setTimeout(() => {
      for (const j of sent.values()) results[j] = null;
      parentPort.postMessage(results);
      socket.close();
    }, 2000);
    return;
  }
  const id = (i % 65535) + 1;
  sent.set(id, i);
  results[i] = performance.now();
  socket.send(query(id, names[i % names.length]), port, '127.0.0.1');
  setTimeout(() => tick(i + 1), everyMs);
}
tick(0);
`;

/** Starts {@link SAMPLER}; `stop()` resolves with the round trips. */
function startSampler(port: number, names: string[]): { stop(): Promise<Array<number | null>> } {
  const worker = new Worker(SAMPLER, { eval: true, workerData: { port, names, everyMs: SAMPLE_EVERY_MS } });
  const results = new Promise<Array<number | null>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const r = await results;
      await worker.terminate();
      return r;
    },
  };
}

/** One A query from `from` (a loopback address); @returns the first A record, '' with none within 500 ms. */
async function askA(port: number, name: string, from = '127.0.0.1'): Promise<string> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, from, resolve));
  try {
    return await new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve(''), 500);
      socket.once('message', (msg) => {
        clearTimeout(timer);
        resolve(firstA(msg));
      });
      socket.send(
        dnsPacket.encode({
          type: 'query',
          id: randomBytes(2).readUInt16BE(0),
          flags: dnsPacket.RECURSION_DESIRED,
          questions: [{ type: 'A', name, class: 'IN' }],
        }),
        port,
        '127.0.0.1',
      );
    });
  } finally {
    socket.close();
  }
}

/**
 * `write()`, again while SQLite reports the database locked: the query-log writer thread commits
 * beside these writes, and a deferred transaction that read first is refused at once (the
 * contention of issue 30's "API writes fail under DNS load", not what this test is about).
 */
async function retried<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (attempt >= 20 || !(err instanceof Error && /database is locked/.test(err.message))) throw err;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

/** Asks until the answer is `expected` or `ms` pass; @returns the last answer. */
async function until(ms: number, ask: () => Promise<string>, expected: string): Promise<string> {
  const since = Date.now();
  let last = await ask();
  while (last !== expected && Date.now() - since < ms) last = await ask();
  return last;
}

it('answers ≥ 99 % of DNS queries within 100 ms through a storm of list changes after a large import', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-list-storm-'));
  const connection = { sqlitePath: join(dir, 'cordon.sqlite') };
  const handle = openDatabase(connection);
  await migrateToLatest(handle);
  const seeded = await seedTenants(handle);
  const changes = createChangeFeed(handle);
  const deps: CoreDeps = { handle, changes, now: () => Date.now() };
  const acme = { policyId: seeded.defaultPolicyId };
  const beta = { policyId: seeded.otherPolicyId };
  // The large import first: Acme's block list.
  const csv = Array.from({ length: IMPORTED }, (_, i) => `imported-${i}.example`).join('\n');
  expect((await lists.importEntries(deps, OPERATOR, acme, 'block', csv, false)).imported).toBe(IMPORTED);

  const upstream = await startFakeUpstream();
  const plane = await startDataPlane({
    connection,
    logger: pino({ level: 'silent' }),
    resolver: {
      dns: { host: '127.0.0.1', port: 0 },
      upstreams: [{ host: '127.0.0.1', port: upstream.port }],
      blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
    },
  });
  // As `cordon serve` does: what this thread publishes reaches the data-plane thread at once.
  changes.subscribe((topic) => plane.relay(topic));
  const port = plane.dns?.udp.port ?? 0;
  try {
    // Acme (127.0.0.1) sees its import. The thread's feed reports every topic on its first poll:
    // the reload that starts then is not the storm's, so wait for the upstream path to answer.
    expect(await until(10_000, () => askA(port, 'imported-7.example'), '127.0.0.1')).toBe('127.0.0.1');
    expect(await until(10_000, () => askA(port, 'allowed.example'), '192.0.2.10')).toBe('192.0.2.10');

    const sampler = startSampler(port, ['allowed.example', 'imported-11.example', 'imported-29000.example']);
    // The storm: Beta adds and deletes entries at the incident's rate (or as fast as core takes
    // them, if slower), for STORM_MS.
    let pairs = 0;
    const stormStart = Date.now();
    while (Date.now() - stormStart < STORM_MS) {
      const due = stormStart + pairs * PAIR_EVERY_MS - Date.now();
      if (due > 0) await new Promise((r) => setTimeout(r, due));
      const entry = await retried(() =>
        lists.createEntry(deps, OPERATOR, beta, 'block', {
          domain: `storm-${pairs}.example`,
          include_subdomains: true,
          comment: '',
          log_requests: true,
        }),
      );
      await retried(() => lists.deleteEntry(deps, OPERATOR, beta, 'block', entry.id));
      pairs++;
    }
    const results = await sampler.stop();
    const onTime = results.filter((ms) => ms !== null && ms <= DEADLINE_MS).length;
    const answered = results.filter((ms): ms is number => ms !== null).sort((a, b) => a - b);
    const summary = {
      pairs,
      samples: results.length,
      onTime,
      unanswered: results.length - answered.length,
      p99: Math.round(answered[Math.floor(answered.length * 0.99)] ?? Number.NaN),
    };
    expect(pairs, JSON.stringify(summary)).toBeGreaterThan(200);
    expect(results.length, JSON.stringify(summary)).toBeGreaterThan(100);
    expect(onTime / results.length, JSON.stringify(summary)).toBeGreaterThanOrEqual(0.99);

    // After the storm, one more entry of Beta's (127.0.0.3) is enforced within a second.
    await retried(() =>
      lists.createEntry(deps, OPERATOR, beta, 'block', {
        domain: 'after-storm.example',
        include_subdomains: true,
        comment: '',
        log_requests: true,
      }),
    );
    expect(await until(1_000, () => askA(port, 'x.after-storm.example', '127.0.0.3'), '127.0.0.1')).toBe('127.0.0.1');
  } finally {
    // Bounded: a data-plane thread still busy with reloads must fail the test, not hang it.
    await Promise.race([plane.close(), new Promise((r) => setTimeout(r, 10_000))]);
    await upstream.close();
    await changes.close();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
