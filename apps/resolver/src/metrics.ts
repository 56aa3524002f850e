/** Transports in the order of {@link ResolverCounters.byTransport}. */
export const TRANSPORTS = ['udp', 'tcp', 'doh', 'dot'] as const;

/**
 * The qtypes counted one by one in {@link ResolverCounters.byQtype} (RFC 1035 §3.2.2, RFC 3596,
 * RFC 9460, RFC 2782, RFC 6891); every other qtype is counted under `other`, so that the metrics' label
 * set stays bounded whatever clients send.
 */
export const COUNTED_QTYPES: ReadonlyArray<readonly [string, number]> = [
  ['A', 1],
  ['NS', 2],
  ['CNAME', 5],
  ['SOA', 6],
  ['PTR', 12],
  ['MX', 15],
  ['TXT', 16],
  ['AAAA', 28],
  ['SRV', 33],
  ['DS', 43],
  ['DNSKEY', 48],
  ['SVCB', 64],
  ['HTTPS', 65],
  ['ANY', 255],
];

/** Index in {@link ResolverCounters.byQtype} of each counted qtype; `other` is the last index. */
const QTYPE_INDEX = new Map(COUNTED_QTYPES.map(([, code], i) => [code, i]));

/** The index of `qtype` in {@link ResolverCounters.byQtype}. */
export function qtypeIndex(qtype: number): number {
  return QTYPE_INDEX.get(qtype) ?? COUNTED_QTYPES.length;
}

/**
 * The resolver's counters (monotonic since start). Plain fields incremented on the hot path; read
 * through `RunningResolver.metrics`, which copies them.
 */
export class ResolverCounters {
  /** Queries decoded and handed to the pipeline. */
  queries = 0;
  /**
   * Datagrams/frames answered FORMERR, NOTIMP or BADVERS by a transport, and ones dropped
   * unanswered (shorter than a DNS header, or a response: QR=1).
   */
  malformed = 0;
  /** Clients matching no location address: REFUSED and not logged (no customer to log against). */
  unknownClients = 0;
  allowed = 0;
  blocked = 0;
  /** Of {@link blocked}: allowed qnames whose upstream answer named a blocked alias (CNAME/DNAME/HTTPS target: pipeline/answer-check.ts). */
  blockedByAlias = 0;
  /** Queries of a class other than IN answered locally (CHAOS identity) or REFUSED, never forwarded (pipeline/chaos.ts). */
  nonInternetClass = 0;
  cacheHits = 0;
  cacheMisses = 0;
  /** Cache misses that waited for an identical question already in flight upstream (no query of their own). */
  coalesced = 0;
  staleAnswers = 0;
  servfail = 0;
  /** UDP answers sent truncated (TC=1) because they did not fit. */
  truncated = 0;
  /** qtype ANY answered with the synthesized HINFO (RFC 8482 §4.2). */
  minimalAny = 0;
  /** UDP queries over their client prefix's response rate (dropped or slipped): transport/rrl.ts. */
  rateLimited = 0;
  /** Of {@link rateLimited} and {@link locationLimited}, those answered with an empty TC=1 answer (the slip) rather than dropped. */
  slipped = 0;
  /** UDP queries over their claimed location's limit (`--location-rate-limit`; dropped or slipped): transport/udp.ts. */
  locationLimited = 0;
  /** TCP connections destroyed at accept: over the global or the per-source cap. */
  tcpRefused = 0;
  /** TCP connections closed after the idle timeout (RFC 7766 §6.2.3). */
  tcpIdleClosed = 0;
  /** TCP connections closed because a started message did not complete within its deadline (slow drip). */
  tcpDeadlineClosed = 0;
  /** TCP connections closed because their answers stayed unread past the write timeout. */
  tcpStalledClosed = 0;
  /** TCP connections closed for a frame shorter than a DNS header. */
  tcpMalformedClosed = 0;
  /** Times a TCP connection's reading was paused because its output was not being read. */
  tcpBackpressurePauses = 0;
  /** Largest output buffered for one TCP connection after a write, bytes (bounded by backpressure). */
  tcpPeakWriteBuffer = 0;
  /** DoH requests carrying a DNS message for a known key, handed to the exchange (transport/doh.ts). */
  dohQueries = 0;
  /** DoH requests answered with an HTTP error: unknown key or path (404), bad method, type, size or message. */
  dohRejected = 0;
  /** DoT queries (length-prefixed messages over TLS) handed to the exchange (transport/dot.ts). */
  dotQueries = 0;
  /** DoT connections destroyed at accept, before TLS: over the global or the per-source cap. */
  dotRejected = 0;
  /** DoT connections admitted and closed before their TLS handshake completed: failed (a client not trusting the certificate, or not speaking TLS), timed out or abandoned. */
  dotHandshakeFailed = 0;
  /** Queries identified by a device key (DoH path or EDNS option 65073), by a location key (DoH path). */
  byDeviceKey = 0;
  byLocationKey = 0;
  /** Queries decoded, by transport ({@link TRANSPORTS} order). */
  readonly byTransport = new Float64Array(TRANSPORTS.length);
  /** Queries decoded, by qtype ({@link COUNTED_QTYPES} order, then every other qtype). */
  readonly byQtype = new Float64Array(COUNTED_QTYPES.length + 1);
  /** Answers sent to decoded queries, by RCODE (0–15, the header's 4 bits; RFC 1035 §4.1.1, RFC 6895 §2.3). */
  readonly byRcode = new Float64Array(16);
}
