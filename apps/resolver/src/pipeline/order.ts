import type { AnswerCache } from '../cache/answer-cache.ts';
import type { ResolverCounters } from '../metrics.ts';
import type { QueryLogSink } from '../querylog/writer.ts';
import type { Handler, Middleware } from '../request.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { answerCheckLink } from './answer-check.ts';
import { type BlockAddresses, servfailAnswer } from './answers.ts';
import { cacheLink } from './cache.ts';
import { type ChaosIdentity, chaosLink } from './chaos.ts';
import { identifyLink } from './identify.ts';
import { minimalAnyLink } from './minimal-any.ts';
import { policyLink } from './policy.ts';
import { queryLogLink } from './querylog.ts';
import { safeSearchLink } from './safe-search.ts';
import { upstreamLink } from './upstream.ts';

/** Everything the links are built from; passed explicitly (no singletons: docs/contributing.md "Conventions"). */
export interface PipelineDeps {
  readonly store: SnapshotStore;
  readonly cache: AnswerCache;
  readonly upstream: UpstreamClient;
  readonly queryLog: QueryLogSink;
  readonly counters: ResolverCounters;
  readonly blockAddresses: BlockAddresses;
  /** CHAOS TXT answers (pipeline/chaos.ts); absent: every CHAOS question is REFUSED. */
  readonly chaos?: ChaosIdentity;
}

const NO_CHAOS: ChaosIdentity = Object.freeze({ version: '', identity: '' });

/** A named pipeline link factory. */
export interface PipelineLink {
  readonly name: string;
  readonly build: (deps: PipelineDeps) => Middleware;
}

/**
 * THE resolver pipeline, outermost first (docs/contributing.md "Conventions" 1, docs/architecture.md "Data plane"). Pinned by
 * test/pipeline-order.test.ts: change it only together with that test and a reason.
 */
export const PIPELINE: readonly PipelineLink[] = [
  // Outermost, so every answer (REFUSED, blocked, cached, stale, SERVFAIL) is timed and logged once.
  { name: 'querylog', build: (d) => queryLogLink(d.queryLog, d.counters) },
  // Before anything tenant-specific: everything below needs the customer and policy it finds.
  { name: 'identify', build: (d) => identifyLink(d.store, d.counters) },
  // Below identify (unknown clients are already REFUSED), above policy: a class other than IN is
  // never a domain to filter or forward; CHAOS identity questions are answered locally or REFUSED.
  { name: 'chaos', build: (d) => chaosLink(d.chaos ?? NO_CHAOS, d.counters) },
  // (rate-limit goes here in a later issue: per identified client, before any work is spent on it.)
  // (bypass goes here in a later issue: an active cloud-key bypass must skip policy, docs/architecture.md "Decision order" step 1.)
  // Above the cache, so policy runs on every query and a cached answer never leaks past a block.
  { name: 'policy', build: (d) => policyLink(d.store, d.blockAddresses, d.counters) },
  // Below policy (only an allowed name is rewritten; a blocked one stays blocked), above cache and
  // upstream, which resolve the safe-search host under its own name (the cache stays tenant-agnostic).
  { name: 'safe-search', build: () => safeSearchLink() },
  // Below policy (a blocked name stays blocked and logged), above cache and upstream: ANY is
  // answered with a synthesized HINFO and never forwarded (RFC 8482 §4.2).
  { name: 'minimal-any', build: (d) => minimalAnyLink(d.counters) },
  // Below policy, above cache: every upstream answer (fresh, cached or stale) of an allowed qname is
  // checked per client for blocked aliases (CNAME/DNAME cloaking), so the cache stays tenant-agnostic.
  { name: 'answer-check', build: (d) => answerCheckLink(d.store, d.blockAddresses, d.counters) },
  // Below policy and tenant-agnostic: holds only upstream answers, shared by all tenants (docs/contributing.md "Conventions" 6).
  { name: 'cache', build: (d) => cacheLink(d.cache, d.counters) },
  // Terminal: only cache misses reach the network.
  { name: 'upstream', build: (d) => upstreamLink(d.upstream) },
];

/** Composes `links` (outermost first) into one handler; past the last link a query gets SERVFAIL. */
export function composePipeline(deps: PipelineDeps, links: readonly PipelineLink[] = PIPELINE): Handler {
  let handler: Handler = (ctx) => Promise.resolve(servfailAnswer(ctx));
  for (let i = links.length - 1; i >= 0; i--) handler = links[i]!.build(deps)(handler);
  return handler;
}
