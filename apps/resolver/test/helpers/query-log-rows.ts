import type { QueryLogRow } from '../../src/querylog/writer.ts';

/** One hour in ms. */
export const HOUR = 3_600_000;
/** The hour the rows of {@link queryLogRow} start in. */
export const T0 = Date.UTC(2026, 10, 22, 10);

/**
 * Query-log row number `i` of a varied test log: two hours, two customers, a location or none,
 * four client addresses, ten qnames, blocked (categories 6 and 13: malware), bypassed and allowed
 * rows, a phishing category (5), and every third row from a device, half of those with a user and a
 * group (migration 0029); every other blocked row was blocked through a name of its answer's alias
 * chain (`matched_name`, migration 0036). `over` replaces columns.
 */
export function queryLogRow(i: number, over: Partial<QueryLogRow> = {}): QueryLogRow {
  return {
    ts: T0 + (i % 2) * HOUR + i,
    customer_id: 1 + (i % 3 === 0 ? 1 : 0),
    location_id: i % 5 === 0 ? null : 7,
    policy_id: 3,
    client_ip: `10.0.0.${i % 4}`,
    qname: `q${i % 10}.example`,
    qtype: 'A',
    protocol: 'udp',
    action: i % 7 === 0 ? 'blocked' : i % 11 === 0 ? 'bypassed' : 'allowed',
    reason: 'default',
    categories: i % 7 === 0 ? '6,13' : i % 13 === 0 ? '5' : '',
    rcode: 'NOERROR',
    answer_source: 'upstream',
    latency_us: 10,
    device_id: i % 3 === 1 ? 40 + (i % 2) : null,
    user_id: i % 6 === 1 ? 50 : null,
    user_name: i % 6 === 1 ? 'alice' : '',
    group_id: i % 6 === 1 ? 60 : null,
    matched_name: i % 14 === 7 ? `t${i % 3}.cname-target.example` : '',
    ...over,
  };
}
