/**
 * The decoded query (RFC 1035 §4.1): what a transport hands to the pipeline. A leaf of the
 * resolver — it imports nothing of ours — so `dns/`, `cache/` and the pipeline's context
 * (`request.ts`) all build on it without a cycle (docs/architecture.md "Layers").
 */
/**
 * The transport a query arrived on (docs/architecture.md "Data plane"): DNS over UDP, TCP, HTTPS
 * (RFC 8484) or TLS (RFC 7858); the query log's `protocol`.
 */
export type DnsProtocol = 'udp' | 'tcp' | 'doh' | 'dot';

/** The one question of a query (RFC 1035 §4.1.2), as read from the wire. */
export interface DnsQuestion {
  /** qname as sent (case preserved, no trailing dot); `.` is the root. */
  readonly name: string;
  /** qname normalised for matching and caching: lower case, no trailing dot. */
  readonly qname: string;
  /** qtype as dns-packet names it (`A`, `AAAA`, `UNKNOWN_65`…); see {@link qtypeName} for the log name. */
  readonly type: string;
  /** qtype number (RFC 1035 §3.2.2; 64 SVCB, 65 HTTPS per RFC 9460). */
  readonly typeCode: number;
  /** qclass as dns-packet names it, normally `IN`. */
  readonly class: string;
  /** qclass number (RFC 1035 §3.2.4; 1 = IN). */
  readonly classCode: number;
}

/** The EDNS(0) OPT pseudo-record of a query (RFC 6891 §6.1), or null when the query had none. */
export interface EdnsInfo {
  /** Requestor's UDP payload size, bytes (values below 512 are treated as 512: RFC 6891 §6.2.5). */
  readonly udpSize: number;
  /** The DO bit (RFC 3225): the client wants DNSSEC records. Part of the cache key. */
  readonly dnssecOk: boolean;
  /** The device key of EDNS(0) option 65073 (docs/agent.md "Wire format"), null when absent or ill-formed. */
  readonly deviceKey: string | null;
  /** The OS user name of EDNS(0) option 65074 (docs/agent.md "Wire format"), null when absent or ill-formed. */
  readonly user: string | null;
}

/**
 * One decoded query, built once by a transport and never changed (docs/architecture.md "Data plane"). Links read it;
 * none re-parses the wire message. Only the header and question are decoded (dns/wire.ts):
 * answers are built by copying `raw[12, questionEnd)` (the question) into the response.
 */
export interface DnsRequest {
  /** Source address; IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is already unwrapped to IPv4. */
  readonly clientIp: string;
  readonly protocol: DnsProtocol;
  /** The query as received on the wire. */
  readonly raw: Buffer;
  /** Header id (RFC 1035 §4.1.1). */
  readonly id: number;
  /** The query's 16-bit header flags word (RD and CD are copied into answers). */
  readonly flags: number;
  /** Offset just past the question in `raw`: `raw[12, questionEnd)` is the wire question. */
  readonly questionEnd: number;
  readonly question: DnsQuestion;
  readonly edns: EdnsInfo | null;
  /**
   * True when the qname's text does not fix its wire form (a label holding `.` or a byte ≥ 0x80):
   * such a question is answered without the shared answer cache (cache/compiled-answer.ts). Absent
   * means false.
   */
  readonly irregularName?: boolean;
  /**
   * The DoH path's or DoT SNI's key (a device's, or a virtual or roaming location's): the key of
   * `/dns-query/{key}`, or the one the leftmost label of the TLS server name carries
   * (docs/agent.md "DoT"); already known to name one (DoH answers 404 to an unknown key before
   * decoding; DoT passes none and the source address identifies); null for UDP and TCP.
   */
  readonly pathKey: string | null;
  /** Wall-clock receive time, epoch ms (the query log's `ts`). */
  readonly receivedAt: number;
  /** Monotonic receive time, `performance.now()` ms (for `latency_us`). */
  readonly startedAt: number;
}
