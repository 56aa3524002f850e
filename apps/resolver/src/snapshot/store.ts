import type { ChangeFeed, ChangeTopic, DatabaseHandle } from '@cordon/db';
import type { Logger } from 'pino';
import { CategoryIndex, type CategoryLookup } from '../policy/category-index.ts';
import type { DomainIndex, DomainLists } from '../policy/domain-index.ts';
import type { Decision, EngineSnapshot, Identity } from '../policy/engine/index.ts';
import { type BrandingSnapshot, brandingPart } from './branding.ts';
import { type BypassesSnapshot, bypassesPart } from './bypasses.ts';
import { categoriesPart } from './categories.ts';
import { type DevicesSnapshot, devicesPart } from './devices.ts';
import { type GroupsSnapshot, groupsPart } from './groups.ts';
import { type IdentifiedBy, Identities, type WhoAsks } from './identities.ts';
import { listsPart } from './lists.ts';
import { type LocationsSnapshot, locationsPart } from './locations.ts';
import { type CategoryOverrides, overridesPart, withOverrides } from './overrides.ts';
import type { SnapshotPart } from './part.ts';
import { type PoliciesSnapshot, policiesPart } from './policies.ts';
import { staticRoutesPart } from './static-routes.ts';

/** Counters of snapshot reloads, for metrics. */
export interface SnapshotStats {
  /** Loads of the locations or policies part (the tenant data). */
  tenantReloads: number;
  categoryReloads: number;
  reloadFailures: number;
  /** Full resyncs run by the safety-net timer. */
  resyncs: number;
  /** Customers re-read by the last locations / policies load (all of them on a full load). */
  lastLocationCustomers: number;
  lastPolicyCustomers: number;
  categoryDomains: number;
  categoryLoadMs: number;
  /** Devices indexed by key, and the customers whose devices the last devices load re-read. */
  devices: number;
  lastDeviceCustomers: number;
  /** Internal users loaded. */
  users: number;
  /** Duration of the last identity rebuild (relink), ms. */
  relinkMs: number;
}

/** Settings of {@link SnapshotStore}. */
export interface SnapshotStoreOptions {
  /** Period of the full resync of every part (the safety net of the incremental loads), ms; default 300,000; 0 = off. */
  resyncMs?: number;
}

/** One part's current value and its coalesced reload. */
class Slot<T> {
  value: T;
  readonly reload: (full: boolean) => Promise<void>;
  constructor(
    readonly part: SnapshotPart<T>,
    load: (part: SnapshotPart<T>, previous: T | null) => Promise<T>,
    onLoaded: (value: T) => void,
  ) {
    this.value = part.empty();
    let loaded = false;
    let wantFull = false;
    const run = coalesced(async () => {
      const full = wantFull || !loaded;
      wantFull = false;
      const value = await load(part, full ? null : this.value);
      loaded = true;
      if (value !== this.value) {
        this.value = value;
        onLoaded(value);
      }
    });
    this.reload = (full) => {
      if (full) wantFull = true;
      return run();
    };
  }
}

/**
 * The resolver's in-memory snapshot, made of parts (docs/architecture.md "Data plane"): locations,
 * policies, categories, the lists, static routes, devices, groups and users, the cloud-key
 * bypasses and the block-page branding. Each part has its own loader and topics; a change reloads only the parts that follow its topic, and the
 * locations and policies parts re-read only the customers whose rows changed. Every `resyncMs` all
 * parts are read in full (the safety net of the incremental loads).
 *
 * A reload builds a new value and swaps the reference, so queries keep the old one meanwhile; bursts
 * coalesce into at most one queued reload per part. A failed reload (database unreachable) keeps the
 * last value and is logged. After the locations or policies part changes, the identities are
 * relinked in memory: one frozen {@link KnownIdentity} per location, carrying its compiled effective
 * policy, in a prefix matcher built from the claims in address-id order (longest prefix wins; of
 * equal ranges the oldest claim, the rest logged).
 *
 * It is the {@link EngineSnapshot} the policy engine reads.
 */
export class SnapshotStore implements EngineSnapshot {
  readonly stats: SnapshotStats = {
    tenantReloads: 0,
    categoryReloads: 0,
    reloadFailures: 0,
    resyncs: 0,
    lastLocationCustomers: 0,
    lastPolicyCustomers: 0,
    categoryDomains: 0,
    categoryLoadMs: 0,
    devices: 0,
    lastDeviceCustomers: 0,
    users: 0,
    relinkMs: 0,
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
  private readonly lists = new Slot(
    listsPart,
    (p, prev) => this.loadPart(p, prev),
    () => this.relink(),
  );
  private readonly routes = new Slot(
    staticRoutesPart,
    (p, prev) => this.loadPart(p, prev),
    () => undefined,
  );
  private readonly bypassSlot: Slot<BypassesSnapshot>;
  private readonly brandingSlot = new Slot(
    brandingPart,
    (p, prev) => this.loadPart(p, prev),
    () => undefined,
  );
  private readonly slots: readonly Slot<unknown>[];
  private unsubscribe: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly logger: Logger,
    private readonly options: SnapshotStoreOptions = {},
  ) {
    const load = <T>(p: SnapshotPart<T>, prev: T | null) => this.loadPart(p, prev);
    this.locations = new Slot(locationsPart, load, (v) => {
      this.stats.tenantReloads++;
      this.stats.lastLocationCustomers = v.reloadedCustomers;
      this.relink('devices');
    });
    this.policies = new Slot(policiesPart, load, (v) => {
      this.stats.tenantReloads++;
      this.stats.lastPolicyCustomers = v.reloadedCustomers;
      this.relink();
    });
    this.categoriesSlot = new Slot(
      categoriesPart,
      async (p, prev) => {
        const t0 = performance.now();
        const index = await this.loadPart(p, prev);
        this.stats.categoryLoadMs = Math.round(performance.now() - t0);
        return index;
      },
      (index) => {
        this.stats.categoryReloads++;
        this.relinkCategories();
        this.stats.categoryDomains = index.size;
        this.logger.info(
          { domains: index.size, ms: this.stats.categoryLoadMs, bytes: index.byteSize },
          'category index loaded',
        );
      },
    );
    this.overridesSlot = new Slot(overridesPart, load, () => this.relinkCategories());
    this.devices = new Slot(devicesPart, load, (v) => {
      this.stats.lastDeviceCustomers = v.reloadedCustomers;
      this.relink('places');
    });
    this.groups = new Slot(groupsPart, load, (v) => {
      this.stats.users = v.size;
      this.relink('places');
    });
    this.bypassSlot = new Slot(bypassesPart, load, () => undefined);
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

  /** True when `key` names a device or a roaming/virtual location now (the DoH listener's 404 test). */
  knowsKey(key: string): boolean {
    return this.identities.knowsKey(key);
  }

  /** Loads every part in full. Rejects when the database cannot be read (startup must not serve nothing silently). */
  async load(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.reload(true)));
  }

  /** Subscribes to the change feed and starts the periodic resync; {@link close} stops both. */
  follow(changes: ChangeFeed): void {
    this.unsubscribe = changes.subscribe((topic) => this.onChange(topic));
    const every = this.options.resyncMs ?? 300_000;
    if (every > 0) {
      this.timer = setInterval(() => {
        this.stats.resyncs++;
        this.load().catch((err: unknown) => this.failed(err, 'resync'));
      }, every);
      this.timer.unref();
    }
  }

  /** Reloads the parts that follow `topic`, each alone (the locations and policies parts incrementally). */
  private onChange(topic: ChangeTopic): void {
    for (const slot of this.slots) {
      if (slot.part.topics.includes(topic)) slot.reload(false).catch((err: unknown) => this.failed(err, topic));
    }
  }

  private failed(err: unknown, cause: string): void {
    this.stats.reloadFailures++;
    this.logger.error({ err, cause }, 'snapshot reload failed; serving the last snapshot');
  }

  private loadPart<T>(part: SnapshotPart<T>, previous: T | null): Promise<T> {
    return part.load(this.handle, this.logger, previous);
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
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
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
