/**
 * The resolver's counters (monotonic since start). Plain fields incremented on the hot path; read
 * through `RunningResolver.metrics`, which copies them.
 */
export class ResolverCounters {
  /** Queries decoded and handed to the pipeline. */
  queries = 0;
  /** Datagrams/frames answered FORMERR or NOTIMP by a transport, and ones dropped undecodable. */
  malformed = 0;
  /** Clients matching no location address: REFUSED and not logged (no customer to log against). */
  unknownClients = 0;
  allowed = 0;
  blocked = 0;
  cacheHits = 0;
  cacheMisses = 0;
  /** Cache misses that waited for an identical question already in flight upstream (no query of their own). */
  coalesced = 0;
  staleAnswers = 0;
  servfail = 0;
  /** UDP answers sent truncated (TC=1). */
  truncated = 0;
}
