import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { type DatabaseHandle, migrateToLatest, type OpenDatabaseOptions, openDatabase } from '@cordon/db';
import { testDialects } from '@cordon/db/testing';
import { loadUdpBatch } from '@cordon/udp-batch';
import { sql } from 'kysely';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startDataPlane } from '../src/dataplane/host.ts';
import { dig } from './helpers/dig.ts';
import { startFakeUpstream } from './helpers/fake-upstream.ts';
import { addStaticLocation, seedTenants } from './helpers/seed.ts';

const silent = pino({ level: 'silent' });

/**
 * A migrated database the data-plane thread can open on its own: a SQLite file, or a fresh schema
 * on the `CORDON_TEST_DATABASE_URL` server (the thread gets the URL and the schema).
 */
async function threadDatabase(
  dialect: 'sqlite' | 'postgres',
): Promise<{ connection: OpenDatabaseOptions; handle: DatabaseHandle; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-dataplane-'));
    const connection = { sqlitePath: join(dir, 'cordon.sqlite') };
    const handle = openDatabase(connection);
    await migrateToLatest(handle);
    return { connection, handle, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = process.env.CORDON_TEST_DATABASE_URL ?? '';
  const schema = `cordon_dataplane_${randomBytes(6).toString('hex')}`;
  const admin = openDatabase({ url, pgPoolSize: 1 });
  await sql`create schema ${sql.id(schema)}`.execute(admin.db);
  const connection = { url, pgSchema: schema };
  const handle = openDatabase({ ...connection, pgPoolSize: 2 });
  await migrateToLatest(handle);
  return {
    connection,
    handle,
    drop: async () => {
      await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.db);
      await admin.close();
    },
  };
}

/** A port that was free a moment ago (bound to port 0 and released), UDP and TCP alike on loopback. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** GET / on the block page with a `Host` header (fetch would not send one of ours). */
function blockPage(port: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each(testDialects())('data-plane thread on %s', (dialect) => {
  it.each([
    ['its own thread', false],
    ['the calling thread (inProcess)', true],
  ] as const)(
    'serves DNS and the block page from %s, applies relayed changes at once, and close() flushes the query log',
    async (_where, inProcess) => {
      const { connection, handle, drop } = await threadDatabase(dialect);
      const seeded = await seedTenants(handle);
      const upstream = await startFakeUpstream();
      const plane = await startDataPlane({
        connection,
        logger: silent,
        inProcess,
        resolver: {
          dns: { host: '127.0.0.1', port: 0 },
          upstreams: [{ host: '127.0.0.1', port: upstream.port }],
          blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
        },
        blockPage: { http: { host: '127.0.0.1', port: 0 } },
        // Far longer than the test: only the relay can bring the change below in time.
        changePollMs: 60_000,
      });
      try {
        const port = plane.dns?.udp.port ?? 0;
        expect(plane.dns?.tcp.port).toBe(port);
        const blocked = await dig(port, 'gambling.example', 'A');
        expect(blocked.status).toBe('NOERROR');
        expect(blocked.answers).toEqual([{ name: 'gambling.example.', ttl: 60, type: 'A', data: '127.0.0.1' }]);
        expect((await dig(port, '+tcp', 'allowed.example', 'A')).answers[0]?.data).toBe('192.0.2.10');
        // The block page shares the resolver's snapshot on that thread.
        const page = await blockPage(plane.blockPage?.port ?? 0, 'gambling.example');
        expect(page.status).toBe(200);
        expect(page.body).toContain('gambling.example');
        expect(page.body).toContain('Gambling');

        // 127.0.0.5 is nobody's: REFUSED. Claim it for the other customer, then relay the topic.
        expect((await dig(port, '-b', '127.0.0.5', 'allowed.example', 'A')).status).toBe('REFUSED');
        await addStaticLocation(handle, seeded.otherCustomerId, 'Annex', '127.0.0.5/32');
        const relayedAt = Date.now();
        plane.relay('locations');
        let status = '';
        while (Date.now() - relayedAt < 1000) {
          status = (await dig(port, '-b', '127.0.0.5', 'allowed.example', 'A')).status;
          if (status === 'NOERROR') break;
        }
        expect(status).toBe('NOERROR');

        const metrics = await plane.metrics();
        expect(metrics?.queryLogWriter).toBe('worker');
        expect(metrics?.queries).toBeGreaterThanOrEqual(4);
      } finally {
        await plane.close();
        await plane.close();
      }
      // Every answered query from a known client is in the database once close() has resolved.
      const rows = await handle.db
        .selectFrom('query_log')
        .select(['qname', 'action'])
        .where('qname', '=', 'gambling.example')
        .execute();
      expect(rows).toEqual([{ qname: 'gambling.example', action: 'blocked' }]);
      expect(await plane.metrics()).toBeNull();
      await upstream.close();
      await handle.close();
      await drop();
    },
    60_000,
  );
});

describe('data-plane thread lifecycle', () => {
  it.each([
    ['on its thread', false],
    ['in process', true],
  ] as const)(
    'a bind failure %s rejects with its code after stopping the roles that had started',
    async (_where, inProcess) => {
      const { connection, handle, drop } = await threadDatabase('sqlite');
      const taken = net.createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const dnsPort = await freePort();
      await expect(
        startDataPlane({
          connection,
          logger: silent,
          inProcess,
          resolver: {
            dns: { host: '127.0.0.1', port: dnsPort },
            upstreams: [{ host: '127.0.0.1', port: 9 }],
            blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
          },
          blockPage: { http: { host: '127.0.0.1', port: (taken.address() as net.AddressInfo).port } },
        }),
      ).rejects.toMatchObject({ code: 'EADDRINUSE' });
      // The resolver had bound dnsPort before the block page failed; it has been closed again.
      const socket = dgram.createSocket('udp4');
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind(dnsPort, '127.0.0.1', resolve);
      });
      socket.close();
      await new Promise((resolve) => taken.close(resolve));
      await handle.close();
      await drop();
    },
    60_000,
  );

  it('reports a thread that dies at runtime through `failed`; metrics, relay and close() then do nothing', async () => {
    // A stand-in thread: ready at once, then an uncaught exception.
    const standIn = () =>
      new Worker(
        `const { parentPort } = require('node:worker_threads');
         parentPort.postMessage({ kind: 'ready', dns: null, blockPage: null });
         setTimeout(() => { throw new Error('boom'); }, 50);`,
        { eval: true },
      );
    const errors: unknown[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => errors.push(JSON.parse(line)) });
    const plane = await startDataPlane(
      { connection: { sqlitePath: ':memory:' }, logger, blockPage: { http: { host: '127.0.0.1', port: 0 } } },
      standIn,
    );
    const err = await plane.failed;
    expect(err.message).toBe('boom');
    expect(errors).toMatchObject([{ msg: 'data-plane thread failed', err: { message: 'boom' } }]);
    plane.relay('tenants');
    expect(await plane.metrics()).toBeNull();
    await plane.close();
  });

  it('refuses several resolver threads on the dgram backend, saying why', async () => {
    await expect(
      startDataPlane({
        connection: { sqlitePath: ':memory:' },
        logger: silent,
        resolverThreads: 2,
        resolver: {
          dns: { host: '127.0.0.1', port: 0 },
          upstreams: [{ host: '127.0.0.1', port: 9 }],
          blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
          udpBackend: 'dgram',
        },
      }),
    ).rejects.toThrow(/2 resolver threads need the batched UDP addon/);
  });

  it.skipIf(loadUdpBatch() === null)(
    'serves one UDP port from two resolver threads (SO_REUSEPORT), TCP from the first, counters summed',
    async () => {
      const { connection, handle, drop } = await threadDatabase('sqlite');
      await seedTenants(handle);
      const upstream = await startFakeUpstream();
      const plane = await startDataPlane({
        connection,
        logger: silent,
        resolverThreads: 2,
        resolver: {
          dns: { host: '127.0.0.1', port: 0 },
          upstreams: [{ host: '127.0.0.1', port: upstream.port }],
          blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
        },
      });
      try {
        const port = plane.dns?.udp.port ?? 0;
        expect(plane.dns?.tcp.port).toBe(port);
        // Each dig is a new source port: the kernel's hash sends them to both threads.
        for (let i = 0; i < 12; i++) {
          const blocked = await dig(port, 'gambling.example', 'A');
          expect(blocked.answers).toEqual([{ name: 'gambling.example.', ttl: 60, type: 'A', data: '127.0.0.1' }]);
        }
        expect((await dig(port, '+tcp', 'allowed.example', 'A')).answers[0]?.data).toBe('192.0.2.10');
        const metrics = await plane.metrics();
        expect(metrics?.udpBackend).toBe('batch');
        expect(metrics?.queries).toBe(13);
        expect(metrics?.blocked).toBe(12);
      } finally {
        await plane.close();
      }
      const logged = await handle.db
        .selectFrom('query_log')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('qname', '=', 'gambling.example')
        .executeTakeFirstOrThrow();
      expect(Number(logged.n)).toBe(12);
      await upstream.close();
      await handle.close();
      await drop();
    },
    60_000,
  );

  it('refuses to start without a role', async () => {
    await expect(startDataPlane({ connection: { sqlitePath: ':memory:' }, logger: silent })).rejects.toThrow(
      'neither the resolver nor the block page',
    );
  });
});
