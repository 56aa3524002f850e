import { createTestDatabase } from '@cordon/db/testing';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type QueryLogRow, QueryLogWriter } from '../src/querylog/writer.ts';

const row = (i: number): QueryLogRow => ({
  ts: 1_700_000_000_000 + i,
  customer_id: 1,
  location_id: 1,
  policy_id: 1,
  client_ip: '127.0.0.1',
  qname: `q${i}.example`,
  qtype: 'A',
  protocol: 'udp',
  action: 'allowed',
  reason: 'default',
  categories: '',
  rcode: 'NOERROR',
  answer_source: 'upstream',
  latency_us: 10,
});

describe('QueryLogWriter', () => {
  it('drops and counts rows beyond maxBuffer while a flush is in flight, and close() flushes the rest', async () => {
    const handle = await createTestDatabase('sqlite');
    const writer = new QueryLogWriter(handle, pino({ level: 'silent' }), {
      batchSize: 100,
      flushMs: 60_000,
      maxBuffer: 250,
    });
    let accepted = 0;
    // The 100th push starts a flush that takes its batch at once and then awaits the INSERT; the
    // synchronous pushes after it refill the buffer to maxBuffer (250) and the last 50 are dropped.
    for (let i = 0; i < 400; i++) if (writer.push(row(i))) accepted++;
    expect(accepted).toBe(350);
    expect(writer.stats.dropped).toBe(50);
    await writer.close();
    const n = await handle.db
      .selectFrom('query_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(350);
    expect(writer.stats.written).toBe(350);
    await handle.close();
  });

  it('counts a failed batch as dropped instead of throwing', async () => {
    const handle = await createTestDatabase('sqlite');
    const writer = new QueryLogWriter(handle, pino({ level: 'silent' }), { flushMs: 60_000 });
    await handle.close();
    writer.push(row(1));
    await writer.close();
    expect(writer.stats.failedBatches).toBe(1);
    expect(writer.stats.dropped).toBe(1);
  });
});
