import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChangeFeed, migrateToLatest, openDatabase } from '@cordon/db';
import pino from 'pino';
import { expect, it } from 'vitest';
import { startResolver } from '../src/index.ts';
import { dig } from './helpers/dig.ts';
import { startFakeUpstream } from './helpers/fake-upstream.ts';
import { seedTenants } from './helpers/seed.ts';

it('on a SQLite file, logs through the writer thread and close() leaves every answered query in the database', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-resolver-'));
  const handle = openDatabase({ sqlitePath: join(dir, 'cordon.sqlite') });
  await migrateToLatest(handle);
  await seedTenants(handle);
  const changes = createChangeFeed(handle);
  await changes.start();
  const upstream = await startFakeUpstream();
  const resolver = await startResolver({
    db: handle,
    changes,
    logger: pino({ level: 'silent' }),
    dns: { host: '127.0.0.1', port: 0 },
    upstreams: [{ host: '127.0.0.1', port: upstream.port }],
    blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
    // Far longer than the test: only close() can have written the rows.
    queryLog: { flushMs: 60_000 },
  });
  try {
    expect(resolver.metrics.queryLogWriter).toBe('worker');
    const port = resolver.address.udp.port;
    expect((await dig(port, 'gambling.example', 'A')).status).toBe('NOERROR');
    expect((await dig(port, 'allowed.example', 'A')).status).toBe('NOERROR');
  } finally {
    await resolver.close();
  }
  const rows = await handle.db.selectFrom('query_log').select(['qname', 'action']).orderBy('id').execute();
  expect(rows).toEqual([
    { qname: 'gambling.example', action: 'blocked' },
    { qname: 'allowed.example', action: 'allowed' },
  ]);
  expect(resolver.metrics.queryLog).toEqual({
    written: 2,
    dropped: 0,
    failedBatches: 0,
    spooled: 0,
    queued: 0,
    spoolBytes: 0,
  });
  await changes.close();
  await upstream.close();
  await handle.close();
  rmSync(dir, { recursive: true, force: true });
});
