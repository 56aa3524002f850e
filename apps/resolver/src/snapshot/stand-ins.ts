import type { DomainIndex, DomainLists } from '../policy/domain-index.ts';
import { NO_LISTS } from '../policy/domain-index.ts';
import type { Decision } from '../policy/engine/index.ts';
import type { SnapshotPart } from './part.ts';

/**
 * The parts whose tables do not exist yet. Each is a do-nothing stand-in (a null object): it loads
 * empty, so the engine's rules reading it pass at once, and it follows no topic yet. The issue that
 * adds a table replaces the part's `load` (and names its topic) without touching the engine.
 */

/** The lists part: the MSPs' and the system's global lists (decision order step 4). */
export interface ListsSnapshot {
  /** MSP id → its global allow and block lists. */
  readonly msp: ReadonlyMap<number, DomainLists>;
  readonly system: DomainLists;
}

/** Global lists; a stand-in until the domain-list tables come with the content-filtering issue. */
export const listsPart: SnapshotPart<ListsSnapshot> = {
  name: 'lists',
  topics: [],
  empty: () => ({ msp: new Map(), system: NO_LISTS }),
  load: async () => ({ msp: new Map(), system: NO_LISTS }),
};

/** Customer id → its static routes (domain suffix → a `static_route` decision), step 2. */
export type StaticRoutesSnapshot = ReadonlyMap<number, DomainIndex<Decision>>;

/** Static routes; a stand-in until their table comes with the content-filtering issue. */
export const staticRoutesPart: SnapshotPart<StaticRoutesSnapshot> = {
  name: 'static-routes',
  topics: [],
  empty: () => new Map<never, never>(),
  load: async () => new Map<never, never>(),
};

/** Devices (identified by key rather than address); a stand-in until the devices issue. */
export const devicesPart: SnapshotPart<ReadonlyMap<string, unknown>> = {
  name: 'devices',
  topics: [],
  empty: () => new Map<never, never>(),
  load: async () => new Map<never, never>(),
};

/** Active cloud-key bypasses (decision order step 1); a stand-in until the cloud-key issue. */
export const bypassesPart: SnapshotPart<ReadonlyMap<string, unknown>> = {
  name: 'bypasses',
  topics: [],
  empty: () => new Map<never, never>(),
  load: async () => new Map<never, never>(),
};
