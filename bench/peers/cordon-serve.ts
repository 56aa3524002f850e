/**
 * Cordon for the peer benchmark (bench/peers/run.sh): bench/resolver-serve.ts's setup (the UT1
 * bench database of bench/resolver-category-load.ts, one customer at 127.0.0.1/32 with a policy
 * blocking every category, tenancy and the query log on, as `cordon serve` ships) but forwarding to
 * the benchmark's shared loopback upstream instead of a private fake one, so Cordon and every peer
 * resolve allowed names from the same server.
 *
 *   node --import tsx bench/peers/cordon-serve.ts <sqlite-file> <port> <upstream-port>
 *
 * Prints `ready rss=…MB` once serving; on SIGTERM prints the resolver's metrics and exits.
 */
import { addressClaimColumns, createChangeFeed, migrateToLatest, openDatabase } from '@cordon/db';
import { CATEGORIES } from '@cordon/shared';
import pino from 'pino';
import { startResolver } from '../../apps/resolver/src/index.ts';

const [file, portArg, upstreamArg] = process.argv.slice(2);
if (!file || !portArg || !upstreamArg) {
  console.error('usage: cordon-serve.ts <sqlite-file> <port> <upstream-port>');
  process.exit(2);
}
const port = Number(portArg);
const upstreamPort = Number(upstreamArg);
const handle = openDatabase({ sqlitePath: file });
await migrateToLatest(handle);
const db = handle.db;
if (!(await db.selectFrom('location_addresses').select('id').where('ip', '=', '127.0.0.1/32').executeTakeFirst())) {
  const now = new Date().toISOString();
  const ts = { created_at: now, updated_at: now };
  const msp = await db
    .insertInto('msps')
    .values({ name: 'Bench', company_name: 'Bench', license: '', timezone: 'UTC', ...ts })
    .returning('id')
    .executeTakeFirstOrThrow();
  const c = await db
    .insertInto('customers')
    .values({ msp_id: msp.id, account_name: 'Bench', uuid_str: 'bench', timezone: 'UTC', ...ts })
    .returning('id')
    .executeTakeFirstOrThrow();
  const p = await db
    .insertInto('policies')
    .values({
      customer_id: c.id,
      name: 'All',
      description: '',
      level: 'custom',
      is_default: 1,
      allow_unclassified: 1,
      ...ts,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('policy_categories')
    .values(CATEGORIES.filter((x) => x.id > 0).map((x) => ({ policy_id: p.id, customer_id: c.id, category_id: x.id })))
    .execute();
  const l = await db
    .insertInto('locations')
    .values({ customer_id: c.id, type: 'staticip', name: 'Bench', policy_id: null, key: null, ...ts })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('location_addresses')
    .values({ location_id: l.id, customer_id: c.id, ...addressClaimColumns('127.0.0.1/32'), created_at: now })
    .execute();
}
const changes = createChangeFeed(handle);
await changes.start();
const resolver = await startResolver({
  db: handle,
  changes,
  logger: pino({ level: 'info' }),
  dns: { host: '127.0.0.1', port },
  upstreams: [{ host: '127.0.0.1', port: upstreamPort }],
  blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
  queryLog: { worker: true },
  // dnsperf sends every query from 127.0.0.1: response-rate limiting would measure itself.
  rrl: { ratePerSecond: 0 },
});
global.gc?.();
console.log(`ready rss=${(process.memoryUsage().rss / 1048576).toFixed(1)}MB`);
const stop = async () => {
  await resolver.close();
  console.log(JSON.stringify(resolver.metrics));
  console.log(`rss=${(process.memoryUsage().rss / 1048576).toFixed(1)}MB`);
  await changes.close();
  await handle.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
