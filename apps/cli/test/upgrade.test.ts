/**
 * Upgrades (docs/operations.md "Upgrades"): a database made by the previous release (v0.1.0,
 * apps/cli/test/fixtures/v0.1.0) is migrated forward by this one and served: every tenant, policy,
 * list and location is there, the root CA is the one sealed by that deployment's secret, an admin logs
 * in with the old password, and the resolver enforces the old policies.
 */

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { MIGRATION_NAMES, openDatabase } from '@cordon/db';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiLogin } from '../../../e2e/support/api.ts';
import { CLI, type CordonProcess, runCordon, startCordon } from '../../../e2e/support/cordon.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';
import { readDeploymentState } from './helpers/deployment-state.ts';
import { resolveA } from './helpers/serve-test.ts';

const FIXTURE = new URL('./fixtures/v0.1.0/', import.meta.url);
const ADMIN = { email: 'root@upgrade.test', password: 'Sup3r-secret' };
const BLOCK_A = '198.51.100.7';

const PG = process.env.CORDON_TEST_DATABASE_URL;

/** A v0.1.0 deployment laid out for this test: its data directory and the variables that point at it. */
interface OldDeployment {
  env: NodeJS.ProcessEnv;
  /** The migrations it had applied, in order. */
  applied: string[];
  /** Its root CA certificate (PEM), as stored. */
  rootCa: string;
  drop(): Promise<void>;
}

/** The SQLite fixture, unpacked into a new data directory with its key files. */
function sqliteDeployment(): OldDeployment {
  const dataDir = mkdtempSync(join(tmpdir(), 'cordon-upgrade-'));
  const dbPath = join(dataDir, 'cordon.sqlite');
  writeFileSync(dbPath, gunzipSync(readFileSync(new URL('cordon.sqlite.gz', FIXTURE))), { mode: 0o600 });
  for (const f of ['jwt.key', 'ca.key-secret']) copyFileSync(new URL(f, FIXTURE), join(dataDir, f));
  const old = new SQLite(dbPath, { readonly: true });
  const applied = (old.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map(
    (r) => r.name,
  );
  const rootCa = (old.prepare('select certificate_pem from root_ca').get() as { certificate_pem: string })
    .certificate_pem;
  old.close();
  return {
    env: { CORDON_DATA_DIR: dataDir },
    applied,
    rootCa,
    drop: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** The PostgreSQL fixture (a plain pg_dump of v0.1.0's database) loaded by psql into a new database. */
async function postgresDeployment(url: string): Promise<OldDeployment> {
  const database = `cordon_upgrade_${randomBytes(4).toString('hex')}`;
  const admin = openDatabase({ url, pgPoolSize: 1 });
  await sql`create database ${sql.id(database)}`.execute(admin.db);
  const target = new URL(url);
  target.pathname = `/${database}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'cordon-upgrade-pg-'));
  const dump = join(dataDir, 'v0.1.0.sql');
  writeFileSync(dump, gunzipSync(readFileSync(new URL('cordon.pg.sql.gz', FIXTURE))));
  execFileSync('psql', ['-v', 'ON_ERROR_STOP=1', '-q', '-d', target.toString(), '-f', dump], { stdio: 'pipe' });
  copyFileSync(new URL('jwt-pg.key', FIXTURE), join(dataDir, 'jwt.key'));
  copyFileSync(new URL('ca-pg.key-secret', FIXTURE), join(dataDir, 'ca.key-secret'));
  chmodSync(join(dataDir, 'jwt.key'), 0o600);
  chmodSync(join(dataDir, 'ca.key-secret'), 0o600);
  const old = openDatabase({ url: target.toString(), pgPoolSize: 1 });
  const applied = (
    await sql<{ name: string }>`select name from kysely_migration order by name`.execute(old.db)
  ).rows.map((r) => r.name);
  const rootCa = (await sql<{ certificate_pem: string }>`select certificate_pem from root_ca`.execute(old.db)).rows[0]
    ?.certificate_pem;
  await old.close();
  return {
    env: { CORDON_DATA_DIR: dataDir, DATABASE_URL: target.toString() },
    applied,
    rootCa: rootCa ?? '',
    drop: async () => {
      rmSync(dataDir, { recursive: true, force: true });
      await sql`drop database if exists ${sql.id(database)} with (force)`.execute(admin.db);
      await admin.close();
    },
  };
}

/** The upgrade's checks, on either dialect. */
function upgradeSuite(name: string, make: () => Promise<OldDeployment> | OldDeployment): void {
  describe(name, () => {
    let old: OldDeployment;
    let upstream: FakeUpstream;
    let cordon: CordonProcess | undefined;

    beforeAll(async () => {
      upstream = await startFakeUpstream();
      old = await make();
    }, 120_000);
    afterAll(async () => {
      await cordon?.stop();
      await upstream?.close();
      await old?.drop();
    });

    it('migrate --dry-run lists exactly the migrations added since, and changes nothing', async () => {
      expect(old.applied.at(-1)).toBe('0036_query_log_matched_name');
      const pending = MIGRATION_NAMES.filter((m) => !old.applied.includes(m));
      const dry = await runCordon(['migrate', '--dry-run'], old.env);
      expect(dry.code, dry.output.join('\n')).toBe(0);
      expect(dry.output.join('\n')).toContain(
        pending.length > 0 ? `pending: ${pending.join(', ')}` : 'database is up to date',
      );
      const again = await runCordon(['migrate', '--dry-run'], old.env);
      expect(again.output).toEqual(dry.output);
    });

    it('serves the old database: tenants, policies, lists, locations and root CA as they were; DNS enforces them', async () => {
      cordon = await startCordon(
        {
          ...old.env,
          CORDON_HTTP_ADDR: '127.0.0.1:0',
          CORDON_DNS_ADDR: '127.0.0.1:0',
          CORDON_BLOCKPAGE_ADDR: '127.0.0.1:0',
          CORDON_BLOCKPAGE_HTTPS_ADDR: '127.0.0.1:0',
          CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
          CORDON_BLOCK_IPV4: BLOCK_A,
          CORDON_LOG_LEVEL: 'warn',
        },
        90_000,
        CLI,
      );
      // The old secrets unsealed the old root CA: nothing was created anew.
      expect(cordon.output.join('\n')).not.toMatch(/First run/);
      const line = cordon.output.find((l) => l.startsWith('cordon serving:')) ?? '';
      const http = Number(/ http=127\.0\.0\.1:(\d+)/.exec(line)?.[1]);
      const dns = Number(/ dns=127\.0\.0\.1:(\d+)/.exec(line)?.[1]);

      const admin = await apiLogin(http, ADMIN.email, ADMIN.password);
      const state = await readDeploymentState(admin, http);
      expect(state.msps.map((m) => m.name)).toEqual(['Northwind MSP']);
      expect(state.customers.map((c) => [c.accountName, c.timezone])).toEqual([
        ['Acme School', 'Europe/Paris'],
        ['Beta Office', 'UTC'],
      ]);
      expect(state.policies.map((p) => [p.name, p.filtering_level, p.is_default])).toEqual([
        ['Default', 'low', true],
        ['Default', 'low', true],
        ['Students', 'moderate', false],
      ]);
      const students = state.policies.find((p) => p.name === 'Students');
      expect(state.lists.map((l) => [l.policyid, l.object, l.domain, l.include_subdomains])).toEqual([
        [students?.id, 'block', 'blocked-by-list.example', true],
        [students?.id, 'allow', 'allowed-by-list.example', true],
      ]);
      expect(state.locations.map((l) => [l.name, l.addresses])).toEqual([
        ['Main campus', ['127.0.0.1/32']],
        ['HQ', ['127.0.0.2/32']],
      ]);
      expect(state.rootCa.trim()).toBe(old.rootCa.trim());
      // The MSP's and the customer's admins log in with their old passwords.
      await apiLogin(http, 'msp@northwind.test', 'Northwind-1');
      await apiLogin(http, 'it@acme-school.test', 'Acme-School-1');

      // Acme School's campus (127.0.0.1): its list and its category filtering; Beta Office (127.0.0.2): neither.
      expect(await resolveA(dns, 'blocked-by-list.example')).toEqual([BLOCK_A]);
      expect(await resolveA(dns, 'www.bet-example.test')).toEqual([BLOCK_A]);
      expect(await resolveA(dns, 'allowed-by-list.example')).toEqual(['192.0.2.10']);
      expect(await resolveA(dns, 'blocked-by-list.example', '127.0.0.2')).toEqual(['192.0.2.10']);

      const migrated = await runCordon(['migrate', '--dry-run'], old.env);
      expect(migrated.output.join('\n')).toContain('database is up to date');
    }, 120_000);
  });
}

upgradeSuite('upgrade from v0.1.0 (SQLite)', sqliteDeployment);
// PostgreSQL when a server answers (CI sets the variable; docs/contributing.md).
if (PG) upgradeSuite('upgrade from v0.1.0 (PostgreSQL)', () => postgresDeployment(PG));
