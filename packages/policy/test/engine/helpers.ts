import { CategoryIndex, CategoryIndexBuilder } from '../../src/category-index.ts';
import type { CompiledPolicy } from '../../src/compiled-policy.ts';
import { DomainIndex, type DomainLists, NO_LISTS } from '../../src/domain-index.ts';
import type { Decision, EngineSnapshot, KnownIdentity } from '../../src/engine/index.ts';

/** A category index of `entries` (domain → category ids). */
export function index(entries: Array<[string, number[]]>): CategoryIndex {
  const b = new CategoryIndexBuilder();
  for (const [d, ids] of entries) b.add(d, ids);
  return b.build();
}

/** A domain list: `*.name` entries include subdomains, bare names match themselves only. */
export function list(...entries: string[]): DomainIndex<true> {
  const idx = new DomainIndex<true>();
  for (const e of entries) idx.add(e.replace(/^\*\./, ''), true, e.startsWith('*.'));
  return idx;
}

/** Allow and block lists from entry arrays. */
export function lists(allow: string[], block: string[]): DomainLists {
  return { allow: list(...allow), block: list(...block) };
}

/** An in-memory engine snapshot; every part empty unless given. */
export function snapshot(parts: Partial<EngineSnapshot> = {}): EngineSnapshot {
  return {
    categories: parts.categories ?? CategoryIndex.empty(),
    staticRoutes: parts.staticRoutes ?? new Map<number, DomainIndex<Decision>>(),
    mspLists: parts.mspLists ?? new Map(),
    systemLists: parts.systemLists ?? NO_LISTS,
    bypasses: parts.bypasses ?? new Map(),
  };
}

/** The identity of customer 1 of MSP 7 at location 3 under `policy`. */
export function who(policy: CompiledPolicy | null): KnownIdentity {
  return {
    kind: 'ok',
    customerId: 1,
    mspId: 7,
    locationId: 3,
    deviceId: null,
    userId: null,
    userName: null,
    groupId: null,
    policy,
    deviceRoutes: null,
  };
}
