import { formatResolverAddress, normalizeDomain } from '@cordon/shared';
import { type CompiledPolicy, compilePolicy } from './compiled-policy.ts';
import { DomainIndex } from './domain-index.ts';
import { type Decision, staticRouteDecision } from './engine/index.ts';

/**
 * Row-to-index steps shared by the resolver's snapshot parts (all tenants) and the customer view
 * of the test-categorisation tool (one tenant, view.ts), so both compile a row the same way
 * (docs/architecture.md "Decision order").
 */

/** A domain-list entry as `policy_domains` and `global_domains` hold it. */
export interface ListEntryRow {
  domain: string;
  /** `allow` or `block`; any other value is ignored. */
  action: string;
  /** 1: the entry covers the domain's subdomains too (SQLite integer or PostgreSQL number). */
  include_subdomains: number;
}

/** Allow and block indexes being filled (sealed by the loader when done). */
export type MutableLists = { allow: DomainIndex<true>; block: DomainIndex<true> };

/** Fresh, empty allow and block indexes. */
export function emptyLists(): MutableLists {
  return { allow: new DomainIndex<true>(), block: new DomainIndex<true>() };
}

/**
 * Adds one list entry (decision order steps 3–4) to `lists`, its domain normalised. Rows must come
 * in id order: of two equal entries the first added wins.
 */
export function addListEntry(lists: MutableLists, row: ListEntryRow): void {
  const index = row.action === 'allow' ? lists.allow : row.action === 'block' ? lists.block : null;
  index?.add(normalizeDomain(row.domain), true, Number(row.include_subdomains) === 1);
}

/** A `static_routes` row as the loaders read it. */
export interface StaticRouteRow {
  customer_id: number;
  domain: string;
  resolver_ip: string;
  resolver_port: number;
}

/**
 * Static routes (decision order step 2) by customer: one {@link DomainIndex} per customer matching
 * each route's suffix and every name below it, each holding a frozen `static_route` decision to the
 * route's resolver (`ip:port`, `[ipv6]:port`), one decision object per distinct resolver.
 * `rows` in id order.
 */
export function staticRouteIndexes(rows: Iterable<StaticRouteRow>): Map<number, DomainIndex<Decision>> {
  const byCustomer = new Map<number, DomainIndex<Decision>>();
  const decisions = new Map<string, Decision>();
  for (const r of rows) {
    const target = formatResolverAddress({ ip: r.resolver_ip, port: r.resolver_port });
    let decision = decisions.get(target);
    if (decision === undefined) {
      decision = staticRouteDecision(target);
      decisions.set(target, decision);
    }
    let index = byCustomer.get(r.customer_id);
    if (index === undefined) {
      index = new DomainIndex<Decision>();
      byCustomer.set(r.customer_id, index);
    }
    index.add(r.domain, decision, true);
  }
  return byCustomer;
}

/** A `policies` row as the loaders read it (integers 0/1 for the switches). */
export interface PolicyRow {
  id: number;
  customer_id: number;
  allow_unclassified: number;
  safe_search: number;
}

/** A policy row and its blocked category ids compiled (no lists yet: they are linked with `withLists`). */
export function compilePolicyRow(row: PolicyRow, blockedCategoryIds: Iterable<number>): CompiledPolicy {
  return compilePolicy(
    row.id,
    row.customer_id,
    blockedCategoryIds,
    Number(row.allow_unclassified) === 1,
    {},
    Number(row.safe_search) === 1,
  );
}
