import type { Decision, Identity } from '@cordon/policy';
import type { AnswerSource } from '@cordon/shared';
import type { CompiledAnswer } from './cache/compiled-answer.ts';
import type { DnsRequest } from './dns/request.ts';

export type { Decision, Identity } from '@cordon/policy';
// The context's vocabulary in one import for the links and transports: the decoded query (dns/)
// and the engine's identity and decision (@cordon/policy). This file imports them, never the reverse.
export type { DnsProtocol, DnsQuestion, DnsRequest, EdnsInfo } from './dns/request.ts';

/**
 * The immutable per-request context that travels down the pipeline (docs/architecture.md "Data
 * plane"). A link that learns something passes a new context to `next`, written as a literal of
 * these three fields (`{ request, identity, decision }`: one small object of a fixed shape, no
 * spread); nobody mutates one.
 */
export interface QueryContext {
  readonly request: DnsRequest;
  /** Set by identify; null above it. */
  readonly identity: Identity | null;
  /** Set by policy; null above it. */
  readonly decision: Decision | null;
}

/**
 * What a pipeline link returns for one query: the whole encoded DNS response (not only its answer
 * section), how it was produced, and the context it was produced in.
 */
export interface PipelineResponse {
  /** The full response on the wire (id, flags, question, sections, OPT), before UDP truncation. */
  readonly wire: Buffer;
  /** Its RCODE (RFC 1035 §4.1.1). */
  readonly rcode: number;
  readonly source: AnswerSource;
  /** The context as the answering link saw it, so outer links (the query log) see identity and decision. */
  readonly context: QueryContext;
  /**
   * The compiled upstream answer `wire` was rendered from (sources `upstream`, `cache`, `stale`):
   * the answer check reads its aliases, the cache link stores it when the source is `upstream`.
   */
  readonly compiled?: CompiledAnswer;
}

/**
 * A pipeline stage's callable: answers one query, synchronously when it can (blocked, REFUSED,
 * cache hits) or with a promise (upstream). Never rejects; failures become SERVFAIL answers.
 */
export type Handler = (ctx: QueryContext) => PipelineResponse | Promise<PipelineResponse>;

/** A pipeline link (docs/architecture.md "Data plane"): wraps the rest of the chain. It may answer and stop, or call `next`. */
export type Middleware = (next: Handler) => Handler;
