import { Resolver } from 'node:dns/promises';
import { locations, type worker } from '@cordon/core';
import type { ClaimLimits } from '@cordon/shared';

/** How often dynamic-DNS locations are re-resolved (docs/agent.md "Dynamic-DNS locations"). */
export const DDNS_INTERVAL_MS = 5 * 60_000;

/** Resolves a host name's IPv4 and IPv6 addresses; rejects when neither lookup answered. */
export type HostLookup = (hostname: string) => Promise<string[]>;

/**
 * A lookup through `upstreams` (the resolver's own upstreams, so a location's name is resolved as
 * Cordon resolves names, not through the host's search domains): A and AAAA in parallel, each with
 * `timeoutMs`. An NXDOMAIN or empty answer of one family is no address; both failing rejects with
 * their reasons.
 */
export function upstreamLookup(upstreams: readonly { host: string; port: number }[], timeoutMs = 3000): HostLookup {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (upstreams.length > 0)
    resolver.setServers(upstreams.map((u) => (u.host.includes(':') ? `[${u.host}]:${u.port}` : `${u.host}:${u.port}`)));
  const noData = new Set(['ENODATA', 'ENOTFOUND']);
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const failed = [v4, v6].filter(
      (r): r is PromiseRejectedResult =>
        r.status === 'rejected' && !noData.has((r.reason as NodeJS.ErrnoException).code ?? ''),
    );
    if (failed.length === 2) throw new Error(`${hostname}: ${(failed[0]!.reason as Error).message}`);
    return [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
  };
}

/**
 * The worker job that follows dynamic-DNS locations (issue 8; docs/agent.md "Dynamic-DNS
 * locations"): every {@link DDNS_INTERVAL_MS}, each `dynamicdns` location's host name is resolved
 * and its address rows replaced by the answer through core (`locations.applyResolvedAddresses`:
 * claim rules enforced, audited, `locations` published so every resolver follows within a second).
 * A failed lookup keeps the last addresses and records the error on the location.
 */
export function ddnsJob(opts: { claims: ClaimLimits; lookup: HostLookup }): worker.WorkerJob {
  return {
    name: 'locations.ddns-refresh',
    intervalMs: DDNS_INTERVAL_MS,
    run: async ({ deps, log }) => {
      const all = await locations.listDynamicDnsLocations(deps);
      let changed = 0;
      for (const l of all) {
        if (l.hostname === '') continue;
        let ips: string[] = [];
        let error = '';
        try {
          ips = await opts.lookup(l.hostname);
          if (ips.length === 0) error = `${l.hostname} has no address.`;
        } catch (err) {
          error = `Could not resolve ${l.hostname}: ${(err as Error).message}`;
        }
        try {
          await locations.applyResolvedAddresses({ ...deps, claims: opts.claims }, l.id, ips, error);
          changed++;
        } catch (err) {
          log.warn({ err, locationId: l.id }, 'dynamic-DNS location: addresses not applied');
        }
      }
      if (all.length > 0) log.info({ locations: all.length, applied: changed }, 'dynamic-DNS locations re-resolved');
    },
  };
}
