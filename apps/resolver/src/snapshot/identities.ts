import {
  type CompiledPolicy,
  type Decision,
  type DeviceRoutes,
  DomainIndex,
  type Identity,
  type KnownIdentity,
  staticRouteDecision,
} from '@cordon/policy';
import { formatResolverAddress, parseCidr, parseResolverAddress } from '@cordon/shared';
import type { DevicesSnapshot, DeviceTable, ExceptionRuleRow } from './devices.ts';
import type { GroupsSnapshot, UserRow } from './groups.ts';
import { type ListsSnapshot, linkLists } from './lists.ts';
import type { LocationsSnapshot } from './locations.ts';
import type { PoliciesSnapshot } from './policies.ts';
import { PrefixMatcher } from './prefix-matcher.ts';

/** The snapshot parts identification is built from. */
export interface IdentitySources {
  readonly locations: LocationsSnapshot;
  readonly policies: PoliciesSnapshot;
  readonly lists: ListsSnapshot;
  readonly devices: DevicesSnapshot;
  readonly groups: GroupsSnapshot;
}

/** What a query says about who asks: its source address, the DoH path key, the EDNS(0) device key and user. */
export interface WhoAsks {
  readonly clientIp: string;
  /** The DoH path's key (a device's or a roaming/virtual location's); null over UDP and TCP. */
  readonly pathKey: string | null;
  /** EDNS(0) option 65073; null when absent. */
  readonly deviceKey: string | null;
  /** EDNS(0) option 65074, the OS user the agent reports; null when absent. */
  readonly user: string | null;
}

/** How a query was identified, for the counters. */
export type IdentifiedBy = 'device' | 'location-key' | 'address' | 'none';

const UNKNOWN: Identity = Object.freeze({ kind: 'unknown' });

/** Distinct user names remembered per device; past it, identities of further names are built per query. */
const USERS_PER_DEVICE = 64;

/**
 * The devices' identities over the devices part's {@link DeviceTable}: a device's identity is built
 * on its first query and kept (by row number) until the next build, and so are the identities of
 * the users seen on it, so 100,000 enrolled devices cost no object each until they ask
 * (bench/README.md "Resolver memory").
 */
class DeviceIdentities {
  private readonly base: (KnownIdentity | undefined)[];
  private readonly users = new Map<number, Map<string, KnownIdentity>>();
  constructor(
    readonly table: DeviceTable,
    /** The identity of device row `i` with `user` (null: none or unknown). */
    private readonly build: (i: number, user: UserRow | null) => KnownIdentity,
    /** The customer's users by name. */
    private readonly usersOf: (customerId: number) => ReadonlyMap<string, UserRow> | undefined,
    /** customer id → device id → the users the device may assert (docs/security.md "Identity claims"). */
    private readonly bindings: ReadonlyMap<number, ReadonlyMap<number, readonly number[]>>,
  ) {
    this.base = new Array(table.size);
  }

  /**
   * The identity of `name` on the device with `key`; undefined: no such device. A name the device
   * may assert (a user bound to it) gets the user's identity (its policy or group may apply:
   * precedence); any other name, unknown or another user's, gets the device's own identity, never
   * a user's (docs/security.md "Identity claims"). Nothing is created or allocated for it.
   */
  forKey(key: string, name: string | null): KnownIdentity | undefined {
    const i = this.table.rowOf(key);
    if (i < 0) return undefined;
    let base = this.base[i];
    if (base === undefined) {
      base = this.build(i, null);
      this.base[i] = base;
    }
    if (name === null) return base;
    let memo = this.users.get(i);
    const known = memo?.get(name);
    if (known !== undefined) return known;
    const customerId = this.table.customerId(i);
    const user = this.usersOf(customerId)?.get(name);
    if (user === undefined) return base;
    const bound = this.bindings.get(customerId)?.get(this.table.deviceId(i));
    if (bound === undefined || !bound.includes(user.userId)) return base;
    const identity = this.build(i, user);
    if (memo === undefined) {
      memo = new Map();
      this.users.set(i, memo);
    }
    if (memo.size < USERS_PER_DEVICE) memo.set(name, identity);
    return identity;
  }
}

/**
 * Who is asking, built once per snapshot change (docs/architecture.md "Identification"): a frozen
 * identity per location (by address prefix, and by DoH key for roaming and virtual locations) and
 * per device (by key; built on the device's first query after the change and then kept), each
 * carrying its compiled effective policy, so a query costs one map probe by key or one probe per
 * prefix length present by address.
 *
 * A device's reported user (EDNS(0) option 65074) counts only when bound to the device
 * (`device_users`); any other name gets the device's own identity.
 *
 * Order: the DoH path key (a device, else a roaming/virtual location; the transport has already
 * answered 404 to a key naming neither), then the EDNS(0) device key (an unknown one is ignored),
 * then the longest prefix covering the source address across static, dynamic-IP and dynamic-DNS
 * locations; else `unknown` (REFUSED).
 *
 * Policy precedence for a device (docs/decisions.md "Environment"): its choice is its own mode and
 * policy, or the customer's device configuration's when its own mode is `default`; then the
 * reported user's own policy; else, unless the choice is `default`, the user's effective group's
 * policy; else, with choice `policy`, the named policy; else the customer's default policy. A
 * location: its own policy, else the customer's default. A policy id that names no policy of the
 * same customer is skipped (never another tenant's policy).
 */
export class Identities {
  private constructor(
    private readonly byAddress: PrefixMatcher<KnownIdentity>,
    private readonly byLocationKey: ReadonlyMap<string, KnownIdentity>,
    private readonly byDeviceKey: DeviceIdentities | null,
  ) {}

  /** Nothing known: every query is `unknown`. */
  static empty(): Identities {
    return new Identities(new PrefixMatcher(), new Map(), null);
  }

  /** Devices indexed by key. */
  get devices(): number {
    return this.byDeviceKey?.table.size ?? 0;
  }

  /** True when `key` names a device or a roaming/virtual location (the DoH listener's 404 test). */
  knowsKey(key: string): boolean {
    return this.byDeviceKey?.table.has(key) === true || this.byLocationKey.has(key);
  }

  /**
   * The location whose address claim covers `clientIp` (longest prefix), or 0 when none does: the
   * UDP transport's test of a claimed source (docs/security.md "Availability under hostile clients
   * and heavy use"). No allocation for IPv4.
   */
  claimedLocation(clientIp: string): number {
    return this.byAddress.lookup(clientIp)?.locationId ?? 0;
  }

  /** The identity of a query; `by`, when given, receives how it was identified. */
  identify(who: WhoAsks, by?: (how: IdentifiedBy) => void): Identity {
    const pathKey = who.pathKey;
    if (pathKey !== null) {
      const device = this.byDeviceKey?.forKey(pathKey, who.user);
      if (device !== undefined) {
        by?.('device');
        return device;
      }
      const location = this.byLocationKey.get(pathKey);
      if (location !== undefined) {
        by?.('location-key');
        return location;
      }
      // A key removed since the transport checked it: nobody.
      by?.('none');
      return UNKNOWN;
    }
    if (who.deviceKey !== null) {
      const device = this.byDeviceKey?.forKey(who.deviceKey, who.user);
      if (device !== undefined) {
        by?.('device');
        return device;
      }
    }
    const hit = this.byAddress.lookup(who.clientIp);
    by?.(hit === undefined ? 'none' : 'address');
    return hit ?? UNKNOWN;
  }

  /**
   * Builds the identities from the parts. `onTie` hears of an address claim ignored because an
   * older claim holds the same range. `reuse` keeps one half of `previous` as it is: `places`
   * (the address and location-key identities: only devices, groups or users changed) or `devices`
   * (only locations changed), so a location's address update does not rebuild 100,000 devices.
   */
  static build(
    src: IdentitySources,
    onTie: (claim: { ip: string; locationId: number; addressId: number }) => void = () => undefined,
    reuse?: { previous: Identities; keep: 'places' | 'devices' },
  ): Identities {
    const { locations, policies, lists, devices, groups } = src;
    const linked = new Map<number, CompiledPolicy>();
    /** The compiled policy `id` of `customerId` with its lists, or null when it is not one of theirs. */
    const policyOf = (id: number | null, customerId: number): CompiledPolicy | null => {
      if (id === null) return null;
      const compiled = policies.byId.get(id);
      if (compiled === undefined || compiled.customerId !== customerId) return null;
      return linkLists(compiled, lists, linked);
    };
    const defaultOf = (customerId: number) => policyOf(policies.defaultOf.get(customerId) ?? null, customerId);

    const keepPlaces = reuse?.keep === 'places';
    const keepDevices = reuse?.keep === 'devices';
    const byLocation = new Map<number, KnownIdentity>();
    for (const l of keepPlaces ? [] : locations.byId.values()) {
      byLocation.set(
        l.locationId,
        identity(
          l.customerId,
          l.mspId,
          l.locationId,
          null,
          null,
          policyOf(l.policyId, l.customerId) ?? defaultOf(l.customerId),
          null,
        ),
      );
    }
    const byAddress = keepPlaces ? reuse!.previous.byAddress : new PrefixMatcher<KnownIdentity>();
    for (const c of keepPlaces ? [] : locations.claims) {
      const id = byLocation.get(c.locationId);
      if (id === undefined) continue;
      if (!byAddress.addRange(c.range, id)) onTie({ ip: c.ip, locationId: c.locationId, addressId: c.addressId });
    }
    let byLocationKey = reuse?.previous.byLocationKey ?? new Map<string, KnownIdentity>();
    if (!keepPlaces) {
      const fresh = new Map<string, KnownIdentity>();
      for (const [key, locationId] of locations.keys) {
        const id = byLocation.get(locationId);
        if (id !== undefined) fresh.set(key, id);
      }
      byLocationKey = fresh;
    }

    // Device exceptions (Use Specific Resolver rules), one matcher per exception shared by its devices.
    const routes = new Map<number, DeviceRoutes | null>();
    const routesOf = (exceptionId: number | null, customerId: number): DeviceRoutes | null => {
      if (exceptionId === null) return null;
      const rules = devices.exceptions.get(exceptionId) ?? [];
      // Never another customer's exception, whatever a row says.
      if (rules.length > 0 && rules[0]!.customerId !== customerId) return null;
      let r = routes.get(exceptionId);
      if (r === undefined) {
        r = compileDeviceRoutes(rules);
        routes.set(exceptionId, r);
      }
      return r;
    };

    /**
     * The device's policy for `user` (null: none reported or unknown). Its choice is its own mode
     * and policy, or, when its own mode is `default`, the customer's device configuration's
     * (docs/decisions.md "Environment"); the same rule as the heartbeat's `policy_id`.
     */
    const table = devices.byKey;
    const devicePolicy = (i: number, user: UserRow | null): CompiledPolicy | null => {
      const c = table.customerId(i);
      const own = table.mode(i);
      const settings = devices.settings.get(c);
      const mode = own !== 'default' ? own : (settings?.mode ?? 'default');
      const named = own !== 'default' ? table.policyId(i) : (settings?.policyId ?? null);
      if (user !== null) {
        const mine = policyOf(user.policyId, c);
        if (mine !== null) return mine;
        if (mode !== 'default') {
          const group = policyOf(user.groupPolicyId, c);
          if (group !== null) return group;
        }
      }
      if (mode === 'policy') {
        const p = policyOf(named, c);
        if (p !== null) return p;
      }
      return defaultOf(c);
    };
    const exceptionOf = (i: number) =>
      table.exceptionId(i) ?? devices.settings.get(table.customerId(i))?.exceptionId ?? null;
    const deviceIdentity = (i: number, u: UserRow | null): KnownIdentity =>
      identity(
        table.customerId(i),
        table.mspId(i),
        table.locationId(i),
        table.deviceId(i),
        u === null ? null : { userId: u.userId, userName: u.name, groupId: u.groupId },
        devicePolicy(i, u),
        routesOf(exceptionOf(i), table.customerId(i)),
      );
    if (keepDevices) return new Identities(byAddress, byLocationKey, reuse!.previous.byDeviceKey);
    const users = groups.users;
    const byDeviceKey = new DeviceIdentities(table, deviceIdentity, (c) => users.get(c), devices.bindings);
    return new Identities(byAddress, byLocationKey, byDeviceKey);
  }
}

function identity(
  customerId: number,
  mspId: number,
  locationId: number | null,
  deviceId: number | null,
  user: { userId: number; userName: string; groupId: number | null } | null,
  policy: CompiledPolicy | null,
  routes: DeviceRoutes | null,
): KnownIdentity {
  return Object.freeze({
    kind: 'ok',
    customerId,
    mspId,
    locationId,
    deviceId,
    userId: user?.userId ?? null,
    userName: user?.userName ?? null,
    groupId: user?.groupId ?? null,
    policy,
    deviceRoutes: routes,
  });
}

/**
 * The resolver's share of a device exception (spec-notes §3 "Exception rule"): its `Use Specific
 * Resolver` rules, as `static_route` decisions forwarding to the rule's resolver (port 53 unless
 * given). `ByPass OTG` rules send a name to the device's own system resolver, which only the agent
 * can do (docs/agent.md); a query that reaches the resolver anyway is filtered as usual. Null when
 * the exception has no such rule.
 */
export function compileDeviceRoutes(rules: readonly ExceptionRuleRow[]): DeviceRoutes | null {
  const byDomain = new DomainIndex<Decision>();
  let any: Decision | null = null;
  const bySource: { range: ReturnType<typeof parseCidr> & object; domain: string; decision: Decision }[] = [];
  for (const r of rules) {
    if (r.ruleType !== 'Use Specific Resolver') continue;
    const target = parseResolverAddress(r.resolver);
    if (target === null) continue;
    const decision = staticRouteDecision(formatResolverAddress(target));
    if (r.ip !== '') {
      const range = parseCidr(r.ip);
      if (range) bySource.push({ range, domain: r.domain, decision });
    } else if (r.domain === '') any ??= decision;
    else byDomain.add(r.domain, decision, true);
  }
  if (byDomain.size === 0 && any === null && bySource.length === 0) return null;
  const sources = bySource.map((s) => {
    const m = new PrefixMatcher<true>();
    m.addRange(s.range, true);
    return { matcher: m, domain: s.domain, decision: s.decision };
  });
  const anyDecision = any;
  return Object.freeze({
    lookup(qname: string, clientIp: string | undefined): Decision | null {
      if (sources.length > 0 && clientIp !== undefined) {
        for (const s of sources) {
          if (s.matcher.lookup(clientIp) === undefined) continue;
          if (s.domain === '' || qname === s.domain || qname.endsWith(`.${s.domain}`)) return s.decision;
        }
      }
      return byDomain.lookup(qname) ?? anyDecision;
    },
  });
}
