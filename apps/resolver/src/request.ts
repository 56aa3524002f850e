import type { AnswerSource, QueryAction, QueryReason } from '@cordon/shared';
import type { CompiledAnswer } from './cache/compiled-answer.ts';

/** The transport a query arrived on (DESIGN.md §9); DoH comes in a later issue. */
export type DnsProtocol = 'udp' | 'tcp';

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
}

/**
 * One decoded query, built once by a transport and never changed (STYLE.md §2). Links read it;
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
  /** Wall-clock receive time, epoch ms (the query log's `ts`). */
  readonly receivedAt: number;
  /** Monotonic receive time, `performance.now()` ms (for `latency_us`). */
  readonly startedAt: number;
}

/**
 * Who is asking (DESIGN.md §8 "Who is asking"): the identify link's result. `ok` carries the
 * tenant, the location and the effective policy (the location's own, else the customer's default;
 * null only when the customer has no default policy at all). `unknown` means no location address
 * covers the client: the query is REFUSED.
 */
export type Identity =
  | { readonly kind: 'ok'; readonly customerId: number; readonly locationId: number; readonly policyId: number | null }
  | { readonly kind: 'unknown' };

/** The filtering decision for a query (DESIGN.md §8 "Decision order"; vocabulary of STYLE.md §4). */
export interface Decision {
  readonly action: QueryAction;
  readonly reason: QueryReason;
  /** Every category id of the qname and its parents (sorted, unique); empty when unclassified. */
  readonly categories: readonly number[];
}

/**
 * The immutable per-request context that travels down the pipeline (STYLE.md §3). A link that
 * learns something passes a new context to `next`, written as a literal of these three fields
 * (`{ request, identity, decision }`: one small object of a fixed shape, no spread); nobody
 * mutates one.
 */
export interface QueryContext {
  readonly request: DnsRequest;
  /** Set by identify; null above it. */
  readonly identity: Identity | null;
  /** Set by policy; null above it. */
  readonly decision: Decision | null;
}

/** A link's answer: the encoded response, how it was produced, and the context it was produced in. */
export interface DnsAnswer {
  /** The full response on the wire (id, flags, question, sections, OPT), before UDP truncation. */
  readonly wire: Buffer;
  /** Its RCODE (RFC 1035 §4.1.1). */
  readonly rcode: number;
  readonly source: AnswerSource;
  /** The context as the answering link saw it, so outer links (the query log) see identity and decision. */
  readonly context: QueryContext;
  /** For `upstream` answers: the sections as compiled for the cache link to store. */
  readonly upstream?: CompiledAnswer;
}

/**
 * A pipeline stage's callable: answers one query, synchronously when it can (blocked, REFUSED,
 * cache hits) or with a promise (upstream). Never rejects; failures become SERVFAIL answers.
 */
export type Handler = (ctx: QueryContext) => DnsAnswer | Promise<DnsAnswer>;

/** A pipeline link (STYLE.md §1): wraps the rest of the chain. It may answer and stop, or call `next`. */
export type Middleware = (next: Handler) => Handler;
