/**
 * Another process's long write (docs/operations.md "Writes under load (SQLite)"): while something
 * outside `cordon serve` — `cordon categories import` of the full UT1 lists holds it ≈ 8 s — keeps
 * SQLite's write lock past the 5 s busy timeout, an API write answers 503 `ERR_UNAVAILABLE` and
 * changes nothing, the worker's query-log fold logs one "busy" line without a stack trace, DNS keeps
 * answering, and everything proceeds once the lock is released. The hold is 6 s: the server's busy
 * timeout is a fixed 5 s, not a clock the test could move.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiLogin } from '../../../e2e/support/api.ts';
import { CLI, type CordonProcess, startCordon } from '../../../e2e/support/cordon.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';
import { askA, bootPort, loopbackServeEnv, resolveA } from './helpers/serve-test.ts';

const ADMIN = { email: 'root@import-contention.test', password: 'Sup3r-secret' };

let upstream: FakeUpstream;
let cordon: CordonProcess;
let dataDir: string;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  dataDir = mkdtempSync(join(tmpdir(), 'cordon-import-contention-'));
  cordon = await startCordon(loopbackServeEnv(dataDir, upstream.port, ADMIN), 90_000, CLI);
});

afterAll(async () => {
  await cordon?.stop();
  await upstream?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

it('a write lock held by another process past the busy timeout: the API says 503 and changes nothing, the fold logs one line, and all proceeds after', async () => {
  const http = bootPort(cordon, 'http');
  const dns = bootPort(cordon, 'dns');
  const admin = await apiLogin(http, ADMIN.email, ADMIN.password);
  // Queries to log, so the fold has work while the lock is held (refused: no location claims 127.0.0.1).
  for (let i = 0; i < 20; i++) await resolveA(dns, `before-${i}.example`);
  const before = await askA(dns, 'before.example');
  expect(before).not.toBeNull();

  const other = new Database(join(dataDir, 'cordon.sqlite'));
  other.exec('BEGIN IMMEDIATE');
  let refused: Awaited<ReturnType<typeof admin.call>>;
  try {
    const held = performance.now();
    refused = await admin.call('POST', '/msp', { name: 'Locked out', company_name: 'Locked out Ltd' });
    // The resolver answers from its loaded snapshot all along.
    expect(await askA(dns, 'during.example')).toEqual(before);
    // Past the server's 5 s busy timeout for the fold too (it runs every second).
    const left = 6_500 - (performance.now() - held);
    if (left > 0) await new Promise((r) => setTimeout(r, left));
  } finally {
    other.exec('ROLLBACK');
    other.close();
  }
  expect(refused.status, JSON.stringify(refused.body)).toBe(503);
  expect(refused.body).toMatchObject({ code: 'ERR_UNAVAILABLE' });

  const created = await admin.call('POST', '/msp', { name: 'After the import', company_name: 'After Ltd' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const names = ((await admin.call('GET', '/msp?limit=100')).body as { data: { name: string }[] }).data.map(
    (m) => m.name,
  );
  expect(names).toContain('After the import');
  expect(names).not.toContain('Locked out');

  const log = cordon.output.join('\n');
  expect(log).toMatch(/database busy/);
  expect(log).not.toMatch(/database is locked/);
  expect(log).not.toMatch(/SqliteError/);
});
