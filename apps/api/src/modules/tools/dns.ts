import { Resolver } from 'node:dns/promises';
import { type DnsLookupResult, normalizeDomain } from '@cordon/shared';

/** Per-attempt timeout of a lookup, ms (two tries: a lookup answers within ~5 s at worst). */
const TIMEOUT_MS = 2500;

type Record = DnsLookupResult['records'][number];

/** `host:port` as node's resolver takes it (IPv6 in brackets). */
const server = (u: { host: string; port: number }) =>
  u.host.includes(':') ? `[${u.host}]:${u.port}` : `${u.host}:${u.port}`;

/**
 * Looks `domain` up through `upstreams` (Cordon's own upstream resolvers, unfiltered; the host's
 * when none is given): A and AAAA with their TTLs, CNAME, MX (`preference exchange`) and TXT
 * (strings joined), asked in parallel. NXDOMAIN when the name does not exist; SERVFAIL when no
 * type got a usable answer (timeouts, refusals); NOERROR otherwise (records may be empty: NODATA).
 */
export async function lookupThroughUpstreams(
  domain: string,
  upstreams: readonly { host: string; port: number }[] | undefined,
): Promise<DnsLookupResult> {
  const name = normalizeDomain(domain).replace(/\.$/, '');
  const resolver = new Resolver({ timeout: TIMEOUT_MS, tries: 2 });
  const servers = (upstreams ?? []).map(server);
  if (servers.length > 0) resolver.setServers(servers);
  const asks: Array<Promise<Record[]>> = [
    resolver
      .resolve4(name, { ttl: true })
      .then((rs) => rs.map((r) => ({ type: 'A' as const, data: r.address, ttl: r.ttl }))),
    resolver
      .resolve6(name, { ttl: true })
      .then((rs) => rs.map((r) => ({ type: 'AAAA' as const, data: r.address, ttl: r.ttl }))),
    resolver.resolveCname(name).then((rs) => rs.map((data) => ({ type: 'CNAME' as const, data, ttl: null }))),
    resolver
      .resolveMx(name)
      .then((rs) => rs.map((r) => ({ type: 'MX' as const, data: `${r.priority} ${r.exchange}`, ttl: null }))),
    resolver.resolveTxt(name).then((rs) => rs.map((r) => ({ type: 'TXT' as const, data: r.join(''), ttl: null }))),
  ];
  const settled = await Promise.allSettled(asks);
  const records = settled.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
  const codes = settled.flatMap((r) =>
    r.status === 'rejected' ? [(r.reason as NodeJS.ErrnoException).code ?? 'UNKNOWN'] : [],
  );
  const answered = settled.length - codes.filter((c) => c !== 'ENODATA' && c !== 'ENOTFOUND').length;
  const status: DnsLookupResult['status'] =
    records.length === 0 && codes.includes('ENOTFOUND')
      ? 'NXDOMAIN'
      : answered === 0 || (records.length === 0 && codes.some((c) => c !== 'ENODATA' && c !== 'ENOTFOUND'))
        ? 'SERVFAIL'
        : 'NOERROR';
  return { domain: name, upstreams: servers, status, records };
}
