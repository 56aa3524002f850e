import type { QueryAction, QueryReason } from '@cordon/shared';
import type { CategoryLookup } from '../category-index.ts';
import type { CompiledPolicy } from '../compiled-policy.ts';
import type { DomainIndex, DomainLists } from '../domain-index.ts';

/**
 * The filtering decision for a query (docs/architecture.md "Decision order"); `reason` is the
 * rule that decided, in the shared vocabulary of `@cordon/shared` (`QUERY_REASONS`). Decisions are
 * frozen and mostly shared: never mutate one.
 */
export interface Decision {
  readonly action: QueryAction;
  readonly reason: QueryReason;
  /** Every category id of the qname and its parents (sorted, unique); empty when unclassified or not looked up. */
  readonly categories: readonly number[];
  /** For `static_route`: the resolver (`host:port`) the name is forwarded to. */
  readonly forwardTo?: string;
  /**
   * Set when the decision was made on a name of the upstream answer's alias chain rather than on the
   * qname (docs/architecture.md "Answer check"): that name (lower case, no trailing dot).
   */
  readonly matchedName?: string;
}

/**
 * A known client (docs/architecture.md "Identification"): the tenant, the location or device (and
 * the user the agent reports) and the compiled effective policy by the precedence rule (user →
 * group → device/location → customer default); null only when the customer has no default policy
 * at all (then nothing of the policy applies). Built when the snapshot is, shared by every query
 * of the location, device, or device and user.
 */
export interface KnownIdentity {
  readonly kind: 'ok';
  readonly customerId: number;
  /** The customer's MSP (its global lists apply, decision order step 4). */
  readonly mspId: number;
  /** The location; for a device, the one its last heartbeat came from (null when none matched). */
  readonly locationId: number | null;
  /** The device identified by its key (DoH path or EDNS(0) option 65073); null for a location. */
  readonly deviceId: number | null;
  /** The internal user the agent reported (EDNS(0) option 65074), when known; else null. */
  readonly userId: number | null;
  readonly userName: string | null;
  /** That user's effective group (highest ranked enabled group with a policy), or null. */
  readonly groupId: number | null;
  readonly policy: CompiledPolicy | null;
  /** The device exception's `Use Specific Resolver` rules (checked with step 2), or null. */
  readonly deviceRoutes: DeviceRoutes | null;
}

/** A device exception's forwarding rules as the engine reads them (snapshot/identities.ts builds them). */
export interface DeviceRoutes {
  /** The `static_route` decision of the rule matching `qname` (and the client address when the rule names one), or null. */
  lookup(qname: string, clientIp: string | undefined): Decision | null;
}

/**
 * Who is asking: a {@link KnownIdentity}, or `unknown` when no location address covers the client
 * (the query is REFUSED: Cordon is never an open resolver).
 */
export type Identity = KnownIdentity | { readonly kind: 'unknown' };

/** What the engine reads of a question: the qname, normalised (lower case, no trailing dot, A-labels). */
export interface EngineQuestion {
  readonly qname: string;
  /**
   * The client's canonical address (`canonicalIp`), for the cloud-key bypass (decision order step 1);
   * left out where no client asks (the test-categorisation tool): no bypass applies then.
   */
  readonly clientIp?: string;
}

/**
 * An active cloud-key bypass of one client address (docs/architecture.md "Block page"): the customer whose key started
 * it and when it ends, epoch ms. Built when the snapshot's bypass part loads, frozen.
 */
export interface ActiveBypass {
  readonly customerId: number;
  readonly expiresAt: number;
}

/**
 * The parts of the resolver's snapshot the engine reads (the snapshot store implements it; the
 * engine never imports the snapshot). Every member may be empty; the rules then pass at once.
 */
export interface EngineSnapshot {
  /** Domain → category ids (decision order step 5), approved recategorisations first. */
  readonly categories: CategoryLookup;
  /** Customer id → its static routes, domain suffix → a `static_route` decision (step 2). */
  readonly staticRoutes: ReadonlyMap<number, DomainIndex<Decision>>;
  /** MSP id → its global lists (step 4). */
  readonly mspLists: ReadonlyMap<number, DomainLists>;
  /** The system's global lists (step 4, after the MSP's). */
  readonly systemLists: DomainLists;
  /** Client address (canonical) → its cloud-key bypass (step 1); expired entries may linger until the next load. */
  readonly bypasses: ReadonlyMap<string, ActiveBypass>;
}

/**
 * One step of the decision order. `decide` returns the decision when the step matches, else null
 * to pass to the next rule. It runs on every query: no closure or allocation on the common path,
 * frozen precomputed decisions, and an early exit when its data is empty.
 */
export interface Rule {
  /** The step's name, as pinned by the order test. */
  readonly name: string;
  /** `clientIp`: the asking client's canonical address, absent when no client asks (only the bypass rule reads it). */
  readonly decide: (
    snapshot: EngineSnapshot,
    identity: KnownIdentity,
    qname: string,
    now: number,
    clientIp?: string,
  ) => Decision | null;
}
