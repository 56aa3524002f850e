/**
 * `kill -9` during acknowledged API writes (issue 30; docs/security.md "Durability"): a committed
 * change survives a crash of the process. `cordon serve --roles api` (the production bundle: a
 * cycle is mostly its start-up) takes list entry adds from 8 clients at once; each entry answered
 * 2xx is recorded; the process is killed with SIGKILL at a random moment of the writes; then the
 * database must hold every acknowledged entry with its audit row (the one mutation path writes both
 * in one transaction, docs/architecture.md), pass `PRAGMA integrity_check` (SQLite), and the
 * restarted process must answer. 20 cycles on a SQLite file, and 5 on PostgreSQL when
 * `CORDON_TEST_DATABASE_URL` is set; `CORDON_SUITE_LONG=1` runs 200 of each (`CORDON_KILL9_CYCLES`
 * overrides both; `CORDON_KILL9_SEED` replays the kill moments of a run).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DatabaseHandle, openDatabase } from '@cordon/db';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, type CordonProcess, startCordon } from '../../../e2e/support/cordon.ts';
import { authorizeQuery, basic } from '../../api/test/helpers.ts';

const PG = process.env.CORDON_TEST_DATABASE_URL;
const ADMIN = { email: 'root@kill9.test', password: 'Sup3r-secret' };
const LONG = process.env.CORDON_SUITE_LONG === '1';
/**
 * Kill cycles on SQLite: 20 by default, 200 with CORDON_SUITE_LONG=1. A cycle is mostly the restart:
 * ≈ 1.2 s of loading modules on an idle 2-core host, ≈ 2.5 s beside other tests.
 */
const CYCLES = Number(process.env.CORDON_KILL9_CYCLES ?? (LONG ? 200 : 20));
/** Kill cycles on PostgreSQL: 5 by default (the suite's time budget), as many as on SQLite when long. */
const PG_CYCLES = Number(process.env.CORDON_KILL9_CYCLES ?? (LONG ? 200 : 5));
/** Clients writing at once. */
const CLIENTS = 8;

/** A small seeded PRNG (mulberry32), so a failing run's kill moments can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The HTTP port of the boot line (`http=127.0.0.1:N`); the command ran with port 0. */
function httpPort(p: CordonProcess): number {
  const line = p.output.find((l) => l.startsWith('cordon serving:')) ?? '';
  return Number(/ http=127\.0\.0\.1:(\d+)/.exec(line)?.[1]);
}

/** `url` with its database name replaced. */
function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * The kill cycles against one database. `env` selects it (`DATABASE_URL`, or none: the SQLite file
 * of the data directory); `open` opens it directly, for the checks between a kill and the restart.
 */
function killCycles(
  name: string,
  cycles: number,
  env: () => NodeJS.ProcessEnv,
  open: (dataDir: string) => DatabaseHandle,
) {
  const seed = Number(process.env.CORDON_KILL9_SEED ?? Date.now() % 2 ** 31);
  const random = prng(seed);
  let dataDir = '';
  let cordon: CordonProcess | null = null;

  const serve = async (): Promise<number> => {
    cordon = await startCordon(
      {
        CORDON_ROLES: 'api',
        CORDON_DATA_DIR: dataDir,
        CORDON_HTTP_ADDR: '127.0.0.1:0',
        CORDON_ADMIN_EMAIL: ADMIN.email,
        CORDON_ADMIN_PASSWORD: ADMIN.password,
        CORDON_LOG_LEVEL: 'warn',
        ...env(),
      },
      60_000,
      CLI, // the test run's production bundle of the current sources (e2e/support/test-bundle.ts)
    );
    return httpPort(cordon);
  };

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), `cordon-kill9-${name}-`));
  });
  afterAll(async () => {
    const c = cordon as CordonProcess | null;
    if (c !== null && c.child.exitCode === null && c.child.signalCode === null) await c.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    `loses no acknowledged write over ${cycles} kill -9 cycles (${name}; a failure names its seed)`,
    async () => {
      let port = await serve();
      const login = await fetch(
        `http://127.0.0.1:${port}/restapi/oauth/authorize?${new URLSearchParams(authorizeQuery())}`,
        { headers: { authorization: basic(ADMIN.email, ADMIN.password) } },
      );
      expect(login.status).toBe(200);
      // The signing key is in the data directory: the token stays valid across restarts.
      const token = ((await login.json()) as { access_token: string }).access_token;
      const post = async (path: string, body: unknown) =>
        fetch(`http://127.0.0.1:${port}/restapi${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const created = async (path: string, body: unknown): Promise<number> => {
        const res = await post(path, body);
        expect(res.status, await res.clone().text()).toBeLessThan(300);
        return ((await res.json()) as { id: number }).id;
      };
      const msp = await created('/msp', { name: `Kill MSP ${name}`, company_name: 'Kill Ltd' });
      const customer = await created('/users/', { accountName: `Kill ${name}`, msp_id: msp, timezone: 'UTC' });
      const policy = await created('/policies', { user_id: customer, name: 'Kill policy', filtering_level: 'low' });

      const acknowledged: string[] = [];
      let attempted = 0;
      const context = () => `seed ${seed}`;
      for (let cycle = 0; cycle < cycles; cycle++) {
        const killed = cordon as unknown as CordonProcess;
        // The moment of the kill: 0–200 ms after the cycle's first acknowledged write.
        const killAfterMs = Math.floor(random() * 200);
        let firstAck: () => void = () => undefined;
        const acked = new Promise<void>((resolve) => {
          firstAck = resolve;
        });
        let stop = false;
        const client = async (c: number) => {
          for (let n = 0; !stop; n++) {
            const domain = `k${cycle}-${c}-${n}.example`;
            attempted++;
            try {
              const res = await post(`/policies/${policy}/domains/block`, { domain, include_subdomains: true });
              await res.arrayBuffer();
              if (res.status >= 200 && res.status < 300) {
                acknowledged.push(domain);
                firstAck();
              } else if (!stop) throw new Error(`${domain}: ${res.status} before the kill (${context()})`);
            } catch (err) {
              // The connection the kill cut: neither acknowledged nor refused.
              if (!stop && !(err instanceof TypeError)) throw err;
              if (!stop) await new Promise((r) => setTimeout(r, 5));
            }
          }
        };
        const exited = new Promise((resolve) => killed.child.once('exit', resolve));
        const clients = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
        // A client's unexpected answer (clients rejects) or a process that died by itself ends the wait too.
        await Promise.race([acked, clients, exited]);
        expect(killed.child.exitCode, killed.output.slice(-20).join('\n')).toBeNull();
        await new Promise((r) => setTimeout(r, killAfterMs));
        killed.child.kill('SIGKILL');
        await exited;
        stop = true;
        await clients;

        // Dead process, database as the crash left it.
        const direct = open(dataDir);
        try {
          if (direct.dialect === 'sqlite') {
            const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(direct.db);
            expect(
              check.rows.map((r) => r.integrity_check),
              context(),
            ).toEqual(['ok']);
          }
          const stored = new Set(
            (
              await direct.db.selectFrom('policy_domains').select('domain').where('policy_id', '=', policy).execute()
            ).map((r) => r.domain),
          );
          const lost = acknowledged.filter((d) => !stored.has(d));
          expect(
            lost,
            `cycle ${cycle}: ${lost.length} of ${acknowledged.length} acknowledged lost (${context()})`,
          ).toEqual([]);
          // Each stored entry came with its audit row (one transaction).
          const audited = Number(
            (
              await direct.db
                .selectFrom('audit_log')
                .select((eb) => eb.fn.countAll<number>().as('n'))
                .where('entity', '=', 'domain')
                .where('action', '=', 'domain.create')
                .executeTakeFirstOrThrow()
            ).n,
          );
          expect(audited, context()).toBe(stored.size);
        } finally {
          await direct.close();
        }
        port = await serve();
      }
      // The last start answers, and the writes went on through every cycle.
      const res = await fetch(`http://127.0.0.1:${port}/restapi/policies/${policy}/domains/block?limit=1`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { total: number }).total).toBeGreaterThanOrEqual(acknowledged.length);
      expect(acknowledged.length, `${acknowledged.length} of ${attempted} acknowledged`).toBeGreaterThanOrEqual(cycles);
    },
    60_000 + cycles * 4_000,
  );
}

// The two databases' cycles run side by side: a cycle is mostly a start-up, one core's work.
describe.concurrent('kill -9 during acknowledged API writes', () => {
  describe('kill -9 on SQLite', () => {
    killCycles(
      'sqlite',
      CYCLES,
      () => ({}),
      (dataDir) => openDatabase({ sqlitePath: join(dataDir, 'cordon.sqlite') }),
    );
  });

  describe.runIf(PG)('kill -9 on PostgreSQL', () => {
    const database = `cordon_kill9_${randomBytes(4).toString('hex')}`;
    beforeAll(async () => {
      const admin = openDatabase({ url: PG, pgPoolSize: 1 });
      await sql`create database ${sql.id(database)}`.execute(admin.db);
      await admin.close();
    });
    afterAll(async () => {
      const admin = openDatabase({ url: PG, pgPoolSize: 1 });
      await sql`drop database if exists ${sql.id(database)} with (force)`.execute(admin.db);
      await admin.close();
    });
    killCycles(
      'postgres',
      PG_CYCLES,
      () => ({ DATABASE_URL: withDatabase(PG ?? '', database) }),
      () => openDatabase({ url: withDatabase(PG ?? '', database), pgPoolSize: 1 }),
    );
  });
});
