import type { SnapshotPart } from './part.ts';

/**
 * The parts whose tables do not exist yet. Each is a do-nothing stand-in (a null object): it loads
 * empty, so the engine's rules reading it pass at once, and it follows no topic yet. The issue that
 * adds a table replaces the part's `load` (and names its topic) without touching the engine.
 */

/** Devices (identified by key rather than address); a stand-in until the devices issue. */
export const devicesPart: SnapshotPart<ReadonlyMap<string, unknown>> = {
  name: 'devices',
  topics: [],
  empty: () => new Map<never, never>(),
  load: async () => new Map<never, never>(),
};
