import type { ChangeFeed, ChangeTopic, DatabaseHandle } from '@cordon/db';
import {
  CategoryIndex,
  type CategoryLookup,
  type CategoryOverrides,
  type Decision,
  type DomainIndex,
  type DomainLists,
  type EngineSnapshot,
  type Identity,
  withOverrides,
} from '@cordon/policy';
import type { Logger } from 'pino';
import { type BrandingSnapshot, brandingPart } from './branding.ts';
import { type BypassesSnapshot, bypassesPart } from './bypasses.ts';
import { categoriesPart } from './categories.ts';
import { type DevicesSnapshot, devicesPart } from './devices.ts';
import { type Recorder, readPartFile, recordingHandle, removeStaleTemps, replayHandle } from './disk.ts';
import { type GroupsSnapshot, groupsPart } from './groups.ts';
import { type IdentifiedBy, Identities, type WhoAsks } from './identities.ts';
import { type ListsSnapshot, listsPart } from './lists.ts';
import { type LocationsSnapshot, locationsPart } from './locations.ts';
import { overridesPart } from './overrides.ts';
import type { SnapshotPart } from './part.ts';
import { type PoliciesSnapshot, policiesPart } from './policies.ts';
import { type StaticRoutesSnapshot, staticRoutesPart } from './static-routes.ts';

/** Counters of snapshot reloads, for metrics. */
export interface SnapshotStats {
  /** Loads of the locations or policies part (the tenant data). */
  tenantReloads: number;
  categoryReloads: number;
  reloadFailures: number;
  /** Safety-net resyncs run (the timer's, or {@link SnapshotStore.resync} called). */
  resyncs: number;
  /**
   * Parts the resyncs rebuilt (their digest differed from the one read before their last full load,
   * or they had none) and parts they skipped (same digest: nothing read but the digest).
   */
  resyncRebuilt: number;
  resyncSkipped: number;
  /** Duration of the last resync, digests and rebuilds, ms. */
  lastResyncMs: number;
  /** Customers re-read by the last locations / policies load (all of them on a full load). */
  lastLocationCustomers: number;
  lastPolicyCustomers: number;
  /** Loads of the lists part that changed it, and the owners (policies, MSPs, the system) the last one re-read. */
  listReloads: number;
  lastListOwners: number;
  categoryDomains: number;
  categoryLoadMs: number;
  /** Devices indexed by key, and the customers whose devices the last devices load re-read. */
  devices: number;
  lastDeviceCustomers: number;
  /** Internal users loaded. */
  users: number;
  /** Duration of the last identity rebuild (relink), ms. */
  relinkMs: number;
  /** Part files written to the snapshot directory, and those that failed. */
  diskWrites: number;
  diskWriteFailures: number;
  /** Size of the last part file written, bytes, and how long completing it took (fsync, rename), ms. */
  lastDiskBytes: number;
  lastDiskWriteMs: number;
  /** True while the snapshot served is the one read from disk at start (the database unreachable). */
  servingFromDisk: boolean;
  /**
   * Per part (its name): reads from the database that succeeded, when the part was last known
   * current (epoch ms, the end of its last load or of a resync that found its digest unchanged; 0
   * before the first), and the resync outcomes. The safety-net resync checks every part every 5
   * minutes, so an age well past that means the part is stale (docs/operations.md "Monitoring").
   */
  parts: Record<string, PartReads>;
}

/** {@link SnapshotStats.parts} of one part. */
export interface PartReads {
  loads: number;
  loadedAt: number;
  /** Resyncs that rebuilt the part, and those that found its digest unchanged and kept it. */
  resyncRebuilt: number;
  resyncSkipped: number;
}

/** What one {@link SnapshotStore.resync} did, by part name. */
export interface ResyncOutcome {
  rebuilt: string[];
  skipped: string[];
  failed: string[];
}

const noReads = (): PartReads => ({ loads: 0, loadedAt: 0, resyncRebuilt: 0, resyncSkipped: 0 });

/** Settings of {@link SnapshotStore}. */
export interface SnapshotStoreOptions {
  /**
   * Period of the safety-net resync ({@link SnapshotStore.resync}: every part's digest, a full load
   * of those whose digest changed), ms; default 300,000; 0 = off.
   */
  resyncMs?: number;
  /**
   * Directory of the last good snapshot on disk (snapshot/disk.ts; docs/operations.md "Fleet"):
   * written after every full load of a part, read by {@link SnapshotStore.start} when the database
   * is unreachable. Unset or null: no copy on disk.
   */
  snapshotDir?: string | null;
  /**
   * After an incremental reload, how long to wait before re-reading the changed parts in full for
   * their file (changes in a burst share one read), ms; default 30,000.
   */
  snapshotDebounceMs?: number;
  /** Backoff of the database retries while serving from disk, ms: doubles from the first to the last; default [500, 10,000]. */
  retryMs?: readonly [number, number];
  /** The clock of the parts' `loadedAt`, epoch ms (default `Date.now`). */
  now?: () => number;
  /**
   * The coalescing window of the parts that declare one (`SnapshotPart.settleMs`: the lists part's
   * 200 ms), ms; unset: each part's own. 0 reloads at once.
   */
  settleMs?: number;
}

/** One part's current value and its coalesced reload. */
class Slot<T> {
  value: T;
  /** Its entry in {@link SnapshotStats.parts}, set by the store. */
  reads: PartReads = noReads();
  /**
   * The part's digest read just before its last full load (a read of everything); null: none yet
   * (or the part has no digest). Incremental loads leave it: any change since that full load, one
   * applied incrementally included, makes the next resync's digest differ, so that resync rebuilds
   * the part in full once (the incremental result verified) and records the new digest.
   */
  digest: string | null = null;
  readonly reload: (full: boolean) => Promise<void>;
  /** A resync of this part: its digest, and a full load only when it differs from {@link digest}. */
  readonly resync: () => Promise<void>;
  private readonly announce: (value: unknown) => void;
  /** The reload that the changes seen in the current settle window will share; null: no window open. */
  private settling: { timer: NodeJS.Timeout; done: Promise<void> } | null = null;
  constructor(
    readonly part: SnapshotPart<T>,
    load: (part: SnapshotPart<T>, previous: T | null) => Promise<T>,
    onLoaded: (value: T) => void,
    digestOf: (part: SnapshotPart<T>) => Promise<string>,
    now: () => number,
    /** Told when a resync found the digest changed: a change no notification announced. */
    unannounced: (part: SnapshotPart<T>) => void,
  ) {
    // Typed loosely so a Slot<T> is a Slot<unknown> in the store's list.
    this.announce = onLoaded as (value: unknown) => void;
    this.value = part.empty();
    let loaded = false;
    let wantFull = false;
    let wantChange = false;
    let wantResync = false;
    const run = coalesced(async () => {
      // A resync alone may keep the value; joined with a change or a full load, it loads in full.
      const resyncOnly = wantResync && !wantFull && !wantChange && loaded;
      const resync = wantResync;
      const full = wantFull || wantResync || !loaded;
      wantFull = false;
      wantChange = false;
      wantResync = false;
      // Read before the load: a change committed between the two shows at the next resync.
      const digest = part.digest && (full || !part.incremental) ? await digestOf(part) : null;
      if (resyncOnly && digest !== null && digest === this.digest) {
        this.reads.resyncSkipped++;
        this.reads.loadedAt = now();
        return;
      }
      if (resyncOnly) unannounced(part);
      const value = await load(part, full ? null : this.value);
      loaded = true;
      if (digest !== null) this.digest = digest;
      this.reads.loads++;
      this.reads.loadedAt = now();
      if (resync) this.reads.resyncRebuilt++;
      if (value !== this.value) {
        this.value = value;
        onLoaded(value);
      }
    });
    this.reload = (full) => {
      if (full) wantFull = true;
      else wantChange = true;
      return run();
    };
    this.resync = () => {
      wantResync = true;
      return run();
    };
  }

  /**
   * An incremental reload for a change of one of the part's topics: after `settleMs` (every change
   * until then shares it), or at once with 0. Either way it coalesces with a reload in flight.
   */
  changed(settleMs: number): Promise<void> {
    if (settleMs <= 0) return this.reload(false);
    if (this.settling) return this.settling.done;
    let timer!: NodeJS.Timeout;
    const done = new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => {
        this.settling = null;
        this.reload(false).then(resolve, reject);
      }, settleMs);
    });
    this.settling = { timer, done };
    return done;
  }

  /** Drops a settle window still open (the store is closing); its reload never runs. */
  cancel(): void {
    if (this.settling) clearTimeout(this.settling.timer);
    this.settling = null;
  }

  /** Serves `value` (read from disk) until the next load, which stays a full one. */
  restore(value: T): void {
    this.value = value;
    this.digest = null;
    this.announce(value);
  }
}

/**
 * The resolver's in-memory snapshot, made of parts (docs/architecture.md "Data plane"): locations,
 * policies, categories, the lists, static routes, devices, groups and users, the cloud-key
 * bypasses and the block-page branding. Each part has its own loader and topics; a change reloads only the parts that follow its topic, the
 * locations and policies parts re-read only the customers whose rows changed, and the lists part
 * only the owners (policy, MSP, system) whose entries changed, once per burst of changes. Every `resyncMs` a
 * resync ({@link SnapshotStore.resync}) reads each part's digest and rebuilds in full only the parts
 * whose digest changed since their last full load (the safety net of the notifications and of the
 * incremental loads).
 *
 * A reload builds a new value and swaps the reference, so queries keep the old one meanwhile; bursts
 * coalesce into at most one queued reload per part. A failed reload (database unreachable) keeps the
 * last value and is logged. After the locations or policies part changes, the identities are
 * relinked in memory: one frozen {@link KnownIdentity} per location, carrying its compiled effective
 * policy, in a prefix matcher built from the claims in address-id order (longest prefix wins; of
 * equal ranges the oldest claim, the rest logged).
 *
 * With a snapshot directory, every full load of a part is also kept on disk (snapshot/disk.ts), so
 * a resolver started while the database is unreachable serves its last good snapshot
 * ({@link SnapshotStore.start}).
 *
 * It is the {@link EngineSnapshot} the policy engine reads.
 */
export class SnapshotStore implements EngineSnapshot {
  readonly stats: SnapshotStats = {
    tenantReloads: 0,
    categoryReloads: 0,
    reloadFailures: 0,
    resyncs: 0,
    resyncRebuilt: 0,
    resyncSkipped: 0,
    lastResyncMs: 0,
    lastLocationCustomers: 0,
    lastPolicyCustomers: 0,
    listReloads: 0,
    lastListOwners: 0,
    categoryDomains: 0,
    categoryLoadMs: 0,
    devices: 0,
    lastDeviceCustomers: 0,
    users: 0,
    relinkMs: 0,
    diskWrites: 0,
    diskWriteFailures: 0,
    lastDiskBytes: 0,
    lastDiskWriteMs: 0,
    servingFromDisk: false,
    parts: {},
  };
  private identities = Identities.empty();
  private readonly devices: Slot<DevicesSnapshot>;
  private readonly groups: Slot<GroupsSnapshot>;
  private readonly locations: Slot<LocationsSnapshot>;
  private readonly policies: Slot<PoliciesSnapshot>;
  private readonly categoriesSlot: Slot<CategoryIndex>;
  private readonly overridesSlot: Slot<CategoryOverrides>;
  /** The index under the overrides, rebuilt when either changes (the index itself when there is none). */
  private categoryLookup: CategoryLookup = CategoryIndex.empty();
  private readonly lists: Slot<ListsSnapshot>;
  private readonly routes: Slot<StaticRoutesSnapshot>;
  private readonly bypassSlot: Slot<BypassesSnapshot>;
  private readonly brandingSlot: Slot<BrandingSnapshot>;
  private readonly slots: readonly Slot<unknown>[];
  private unsubscribe: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Per part, the file write in progress (writes of one part run one after the other). */
  private readonly diskWrites = new Map<string, Promise<void>>();
  /** Parts whose file holds what their last load read, no change of theirs seen since. */
  private readonly onDisk = new Set<string>();
  /** Per part, the number of changes of its topics seen (a load that began before one is stale on disk). */
  private readonly changeGen = new Map<string, number>();
  /** Parts reloaded incrementally since their file was written. */
  private readonly dirty = new Set<SnapshotPart<unknown>>();
  private diskTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly logger: Logger,
    private readonly options: SnapshotStoreOptions = {},
  ) {
    const load = <T>(p: SnapshotPart<T>, prev: T | null) => this.loadPart(p, prev);
    const digestOf = <T>(p: SnapshotPart<T>) => p.digest!(this.handle);
    const now = options.now ?? Date.now;
    const slot = <T>(
      part: SnapshotPart<T>,
      onLoaded: (value: T) => void,
      loader: (p: SnapshotPart<T>, prev: T | null) => Promise<T> = load,
    ) => new Slot(part, loader, onLoaded, digestOf, now, (p) => this.unannounced(p.name));
    this.lists = slot(listsPart, (v) => {
      this.stats.listReloads++;
      this.stats.lastListOwners = v.reloadedOwners;
      this.relink();
    });
    this.routes = slot(staticRoutesPart, () => undefined);
    this.brandingSlot = slot(brandingPart, () => undefined);
    this.locations = slot(locationsPart, (v) => {
      this.stats.tenantReloads++;
      this.stats.lastLocationCustomers = v.reloadedCustomers;
      this.relink('devices');
    });
    this.policies = slot(policiesPart, (v) => {
      this.stats.tenantReloads++;
      this.stats.lastPolicyCustomers = v.reloadedCustomers;
      this.relink();
    });
    this.categoriesSlot = slot(
      categoriesPart,
      (index) => {
        this.stats.categoryReloads++;
        this.relinkCategories();
        this.stats.categoryDomains = index.size;
        this.logger.info(
          { domains: index.size, ms: this.stats.categoryLoadMs, bytes: index.byteSize },
          'category index loaded',
        );
      },
      async (p, prev) => {
        const t0 = performance.now();
        const index = await this.loadPart(p, prev);
        this.stats.categoryLoadMs = Math.round(performance.now() - t0);
        return index;
      },
    );
    this.overridesSlot = slot(overridesPart, () => this.relinkCategories());
    this.devices = slot(devicesPart, (v) => {
      this.stats.lastDeviceCustomers = v.reloadedCustomers;
      this.relink('places');
    });
    this.groups = slot(groupsPart, (v) => {
      this.stats.users = v.size;
      this.relink('places');
    });
    this.bypassSlot = slot(bypassesPart, () => undefined);
    this.slots = [
      this.locations,
      this.policies,
      this.categoriesSlot,
      this.overridesSlot,
      this.lists,
      this.routes,
      this.devices,
      this.groups,
      this.bypassSlot,
      this.brandingSlot,
    ];
    for (const s of this.slots) {
      s.reads = noReads();
      this.stats.parts[s.part.name] = s.reads;
    }
  }

  /** The categories of a name (decision order step 5): approved recategorisations, then the index. */
  get categories(): CategoryLookup {
    return this.categoryLookup;
  }

  /** The category index alone (its size and memory for the metrics). */
  get categoryIndex(): CategoryIndex {
    return this.categoriesSlot.value;
  }

  private relinkCategories(): void {
    this.categoryLookup = withOverrides(this.categoriesSlot.value, this.overridesSlot.value);
  }

  /** Customer id → static routes (step 2); empty until their table exists. */
  get staticRoutes(): ReadonlyMap<number, DomainIndex<Decision>> {
    return this.routes.value;
  }

  /** MSP id → global lists (step 4); empty until their table exists. */
  get mspLists(): ReadonlyMap<number, DomainLists> {
    return this.lists.value.msp;
  }

  /** Block-page branding by customer, MSP and the system's (the block page only; no rule reads it). */
  get branding(): BrandingSnapshot {
    return this.brandingSlot.value;
  }

  /** Client address → its active cloud-key bypass (step 1). */
  get bypasses(): BypassesSnapshot {
    return this.bypassSlot.value;
  }

  /** The system's global lists (step 4); empty until their table exists. */
  get systemLists(): DomainLists {
    return this.lists.value.system;
  }

  /**
   * Who is asking (docs/architecture.md "Data plane", identify): the identity of the location with
   * the longest prefix covering `clientIp`, or `unknown`. `clientIp` in any spelling: an
   * IPv4-mapped IPv6 address is looked up as its IPv4 address (`canonicalIp`). No allocation for
   * IPv4: identities are built when the snapshot is.
   */
  identify(clientIp: string): Identity {
    return this.identities.identify({ clientIp, pathKey: null, deviceKey: null, user: null });
  }

  /**
   * Who is asking a query (docs/architecture.md "Identification"): the DoH path key, else the
   * EDNS(0) device key, else the source address; see {@link Identities.identify}.
   */
  identifyQuery(who: WhoAsks, by?: (how: IdentifiedBy) => void): Identity {
    return this.identities.identify(who, by);
  }

  /**
   * The location claiming `clientIp` by address (static, dynamic-IP, dynamic-DNS), or 0: the UDP
   * transport's per-location limit and its choice of response-rate limiting (docs/operations.md
   * "Response-rate limiting"). The last answer is remembered per address and snapshot, so a run of
   * queries from one address costs one comparison each; no allocation for IPv4.
   */
  claimedLocation(clientIp: string): number {
    const ids = this.identities;
    if (clientIp === this.claimAddress && ids === this.claimIdentities) return this.claimLocation;
    const location = ids.claimedLocation(clientIp);
    this.claimAddress = clientIp;
    this.claimIdentities = ids;
    this.claimLocation = location;
    return location;
  }
  private claimAddress = '';
  private claimIdentities: Identities | null = null;
  private claimLocation = 0;

  /** True when `key` names a device or a roaming/virtual location now (the DoH listener's 404 test). */
  knowsKey(key: string): boolean {
    return this.identities.knowsKey(key);
  }

  /** Loads every part in full. Rejects when the database cannot be read (startup must not serve nothing silently). */
  async load(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.reload(true)));
  }

  /**
   * Loads every part, from the database when it answers. When it does not and the snapshot
   * directory holds a file for every part (written by the same dialect), serves those instead and
   * retries the database with backoff until a full load succeeds (docs/operations.md "Fleet").
   * @returns where the snapshot came from
   * @throws the database's error when it is unreachable and there is no usable snapshot on disk
   */
  async start(): Promise<'database' | 'disk'> {
    if (this.options.snapshotDir) void removeStaleTemps(this.options.snapshotDir);
    try {
      await this.load();
      return 'database';
    } catch (err) {
      const dir = this.options.snapshotDir;
      if (!dir) throw err;
      const restored = await this.restore(dir).catch((diskErr: unknown) => {
        this.logger.error({ err: diskErr, dir }, 'snapshot on disk unusable');
        return null;
      });
      if (restored === null) throw err;
      this.stats.servingFromDisk = true;
      this.logger.warn(
        { err, dir, writtenAt: new Date(restored).toISOString() },
        'database unreachable: serving the snapshot kept on disk, retrying the database',
      );
      this.retryDatabase(this.options.retryMs?.[0] ?? 500);
      return 'disk';
    }
  }

  /**
   * Rebuilds every part from its file in `dir` (each part's own loader over the recorded rows).
   * @returns the oldest file's time, epoch ms; null when a part has no file
   * @throws when a file is unreadable, of another dialect, or does not match its loader's SQL
   */
  private async restore(dir: string): Promise<number | null> {
    const values: Array<{ slot: Slot<unknown>; value: unknown }> = [];
    let oldest = Number.POSITIVE_INFINITY;
    for (const slot of this.slots) {
      const file = await readPartFile(dir, slot.part.name);
      if (!file) {
        this.logger.warn({ dir, part: slot.part.name }, 'no snapshot file for this part');
        return null;
      }
      if (file.header.dialect !== this.handle.dialect) {
        throw new Error(`snapshot of part ${slot.part.name} was written by ${file.header.dialect}`);
      }
      const replay = replayHandle(file.header.dialect, file.queries, dir);
      values.push({ slot, value: await slot.part.load(replay, this.logger, null) });
      oldest = Math.min(oldest, file.header.writtenAt);
    }
    // All or nothing: a part missing would serve, say, no categories beside current policies.
    for (const { slot, value } of values) slot.restore(value);
    return oldest;
  }

  /** While serving from disk: a full load after `delayMs`, and again with a doubled delay until one succeeds. */
  private retryDatabase(delayMs: number): void {
    if (this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.load().then(
        () => {
          this.stats.servingFromDisk = false;
          this.logger.info('database reachable again: snapshot reloaded from it');
        },
        () => this.retryDatabase(Math.min(delayMs * 2, this.options.retryMs?.[1] ?? 10_000)),
      );
    }, delayMs);
    this.retryTimer.unref();
  }

  /** Subscribes to the change feed and starts the periodic resync; {@link close} stops both. */
  follow(changes: ChangeFeed): void {
    this.unsubscribe = changes.subscribe((topic) => this.onChange(topic));
    const every = this.options.resyncMs ?? 300_000;
    if (every > 0) {
      this.timer = setInterval(() => void this.resync(), every);
      this.timer.unref();
    }
  }

  /**
   * One safety-net resync (docs/architecture.md "Data plane"): every part's digest, and a full load
   * of each part whose digest differs from the one read before its last full load (a change the
   * feed never announced, or one applied incrementally since) or that has none; the other parts
   * keep their value, nothing else read. The `resyncMs` timer calls it; so may tests and tools.
   * Never rejects: a part that cannot be read keeps its value and is logged and counted.
   * @returns the parts rebuilt, skipped (digest unchanged) and failed, by name
   */
  async resync(): Promise<ResyncOutcome> {
    this.stats.resyncs++;
    const t0 = performance.now();
    const before = this.slots.map((s) => s.reads.resyncRebuilt);
    const settled = await Promise.allSettled(this.slots.map((s) => s.resync()));
    const out: ResyncOutcome = { rebuilt: [], skipped: [], failed: [] };
    settled.forEach((r, i) => {
      const slot = this.slots[i]!;
      if (r.status === 'rejected') {
        out.failed.push(slot.part.name);
        this.failed(r.reason, `resync ${slot.part.name}`);
      } else if (slot.reads.resyncRebuilt > before[i]!) out.rebuilt.push(slot.part.name);
      else out.skipped.push(slot.part.name);
    });
    this.stats.resyncRebuilt += out.rebuilt.length;
    this.stats.resyncSkipped += out.skipped.length;
    this.stats.lastResyncMs = Math.round(performance.now() - t0);
    if (out.rebuilt.length > 0 || out.failed.length > 0) {
      this.logger.info({ ...out, ms: this.stats.lastResyncMs }, 'snapshot resync');
    }
    return out;
  }

  /**
   * Reloads the parts that follow `topic`, each alone (the locations, policies and lists parts
   * incrementally; the lists part after its settle window, so a burst of changes is one reload).
   */
  private onChange(topic: ChangeTopic): void {
    for (const slot of this.slots) {
      if (!slot.part.topics.includes(topic)) continue;
      this.changeGen.set(slot.part.name, (this.changeGen.get(slot.part.name) ?? 0) + 1);
      this.onDisk.delete(slot.part.name);
      slot.changed(this.options.settleMs ?? slot.part.settleMs ?? 0).catch((err: unknown) => this.failed(err, topic));
    }
  }

  /** A part changed without a notification (its resync digest moved): its file is stale too. */
  private unannounced(part: string): void {
    this.changeGen.set(part, (this.changeGen.get(part) ?? 0) + 1);
    this.onDisk.delete(part);
  }

  private failed(err: unknown, cause: string): void {
    this.stats.reloadFailures++;
    this.logger.error({ err, cause }, 'snapshot reload failed; serving the last snapshot');
  }

  /**
   * Loads a part. With a snapshot directory, a load that reads the whole part is recorded and its
   * file rewritten; an incremental one marks the part for a full read of its own, debounced.
   */
  private async loadPart<T>(part: SnapshotPart<T>, previous: T | null): Promise<T> {
    const dir = this.options.snapshotDir;
    if (!dir) return part.load(this.handle, this.logger, previous);
    if (previous !== null && part.incremental) {
      const value = await part.load(this.handle, this.logger, previous);
      if (value !== previous) this.markDirty(part as SnapshotPart<unknown>);
      return value;
    }
    // The periodic resync of a part unchanged since its file was written: the file stands (a
    // categories file is tens of MB; rewriting it every 5 minutes would only wear the disk).
    if (this.onDisk.has(part.name) && part.topics.length > 0) return part.load(this.handle, this.logger, previous);
    const generation = this.changeGen.get(part.name) ?? 0;
    const recorder = recordingHandle(this.handle, dir, part.name);
    let value: T;
    try {
      value = await part.load(recorder.handle, this.logger, previous);
    } catch (err) {
      void recorder.abort();
      throw err;
    }
    this.persist(dir, part.name, recorder, generation);
    return value;
  }

  /**
   * Completes a part's file after the previous one of that part; a failure is logged and counted.
   * The part counts as on disk unless a change of it arrived since its load began (`generation`).
   */
  private persist(dir: string, part: string, recorder: Recorder, generation: number): void {
    const before = this.diskWrites.get(part) ?? Promise.resolve();
    const next = before.then(async () => {
      const t0 = performance.now();
      try {
        const bytes = await recorder.commit();
        if ((this.changeGen.get(part) ?? 0) === generation) this.onDisk.add(part);
        this.stats.diskWrites++;
        this.stats.lastDiskBytes = bytes;
        this.stats.lastDiskWriteMs = Math.round(performance.now() - t0);
      } catch (err) {
        this.stats.diskWriteFailures++;
        this.logger.error({ err, dir, part }, 'could not write the snapshot file; the previous one stays');
      }
    });
    this.diskWrites.set(part, next);
    void next.then(() => {
      if (this.diskWrites.get(part) === next) this.diskWrites.delete(part);
    });
  }

  private markDirty(part: SnapshotPart<unknown>): void {
    this.dirty.add(part);
    if (this.diskTimer || this.closed) return;
    this.diskTimer = setTimeout(() => {
      this.diskTimer = null;
      void this.flushDirty();
    }, this.options.snapshotDebounceMs ?? 30_000);
    this.diskTimer.unref();
  }

  /** Re-reads the parts changed incrementally in full, recorded, and rewrites their files. */
  private async flushDirty(): Promise<void> {
    const parts = [...this.dirty];
    this.dirty.clear();
    for (const part of parts) {
      await this.loadPart(part, null).catch((err: unknown) => {
        // The next change or resync writes it; until then the older file stays.
        this.logger.warn({ err, part: part.name }, 'could not re-read a part for its snapshot file');
      });
    }
  }

  /** Resolves when every file write started so far has finished (tests, shutdown). */
  async flushed(): Promise<void> {
    if (this.diskTimer) {
      clearTimeout(this.diskTimer);
      this.diskTimer = null;
      await this.flushDirty();
    }
    await Promise.all([...this.diskWrites.values()]);
  }

  /**
   * Rebuilds the identities from the locations, policies, lists, devices and groups parts (in
   * memory: nothing is read or parsed) and swaps them in at once; `keep` names the half that did
   * not change (see {@link Identities.build}).
   */
  private relink(keep?: 'places' | 'devices'): void {
    const t0 = performance.now();
    this.identities = Identities.build(
      {
        locations: this.locations.value,
        policies: this.policies.value,
        lists: this.lists.value,
        devices: this.devices.value,
        groups: this.groups.value,
      },
      (claim) => this.logger.warn(claim, 'ignoring a later claim of a claimed range'),
      keep ? { previous: this.identities, keep } : undefined,
    );
    this.stats.devices = this.identities.devices;
    this.stats.relinkMs = Math.round(performance.now() - t0);
  }

  close(): void {
    this.closed = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.diskTimer) clearTimeout(this.diskTimer);
    this.diskTimer = null;
    for (const slot of this.slots) slot.cancel();
  }
}

/**
 * Wraps an async task so overlapping calls coalesce: while one run is in flight, every further
 * call shares one queued run that starts after it (so a change made during a reload is not missed).
 */
export function coalesced(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  const run = (): Promise<void> => {
    if (!running) {
      running = task().finally(() => {
        running = null;
      });
      return running;
    }
    if (!queued) {
      queued = running
        .catch(() => undefined)
        .then(() => {
          queued = null;
          return run();
        });
    }
    return queued;
  };
  return run;
}
