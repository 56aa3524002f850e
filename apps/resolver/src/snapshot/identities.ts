import { formatResolverAddress, parseCidr, parseResolverAddress } from '@cordon/shared';
import type { CompiledPolicy } from '../policy/compiled-policy.ts';
import { DomainIndex } from '../policy/domain-index.ts';
import {
  type Decision,
  type DeviceRoutes,
  type Identity,
  type KnownIdentity,
  staticRouteDecision,
} from '../policy/engine/index.ts';
import type { DeviceRow, DevicesSnapshot, ExceptionRuleRow } from './devices.ts';
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

/** A device's precomputed identity and the identities of the users seen on it (memoised). */
class DeviceEntry {
  private users: Map<string, KnownIdentity> | null = null;
  constructor(
    readonly row: DeviceRow,
    /** The identity without a user (or with an unknown one). */
    readonly base: KnownIdentity,
    private readonly build: (row: DeviceRow, user: UserRow) => KnownIdentity,
    private readonly usersOf: ReadonlyMap<string, UserRow> | undefined,
  ) {}

  /** The identity of `name` on this device: the user's policy or group may apply (precedence). */
  forUser(name: string | null): KnownIdentity {
    if (name === null || this.usersOf === undefined) return this.base;
    const memo = this.users?.get(name);
    if (memo !== undefined) return memo;
    const user = this.usersOf.get(name);
    const identity = user === undefined ? this.base : this.build(this.row, user);
    if (user !== undefined) {
      this.users ??= new Map();
      if (this.users.size < USERS_PER_DEVICE) this.users.set(name, identity);
    }
    return identity;
  }
}

/**
 * Who is asking, built once per snapshot change (docs/architecture.md "Identification"): a frozen
 * identity per location (by address prefix, and by DoH key for roaming and virtual locations) and
 * per device (by key), each carrying its compiled effective policy, so a query costs one map probe
 * by key or one probe per prefix length present by address.
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
    private readonly byDeviceKey: ReadonlyMap<string, DeviceEntry>,
  ) {}

  /** Nothing known: every query is `unknown`. */
  static empty(): Identities {
    return new Identities(new PrefixMatcher(), new Map(), new Map());
  }

  /** Devices indexed by key. */
  get devices(): number {
    return this.byDeviceKey.size;
  }

  /** True when `key` names a device or a roaming/virtual location (the DoH listener's 404 test). */
  knowsKey(key: string): boolean {
    return this.byDeviceKey.has(key) || this.byLocationKey.has(key);
  }

  /** The identity of a query; `by`, when given, receives how it was identified. */
  identify(who: WhoAsks, by?: (how: IdentifiedBy) => void): Identity {
    const pathKey = who.pathKey;
    if (pathKey !== null) {
      const device = this.byDeviceKey.get(pathKey);
      if (device !== undefined) {
        by?.('device');
        return device.forUser(who.user);
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
      const device = this.byDeviceKey.get(who.deviceKey);
      if (device !== undefined) {
        by?.('device');
        return device.forUser(who.user);
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
    const devicePolicy = (d: DeviceRow, user: UserRow | null): CompiledPolicy | null => {
      const c = d.customerId;
      const settings = devices.settings.get(c);
      const mode = d.mode !== 'default' ? d.mode : (settings?.mode ?? 'default');
      const named = d.mode !== 'default' ? d.policyId : (settings?.policyId ?? null);
      if (user !== null) {
        const own = policyOf(user.policyId, c);
        if (own !== null) return own;
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
    const exceptionOf = (d: DeviceRow) => d.exceptionId ?? devices.settings.get(d.customerId)?.exceptionId ?? null;
    const forUser = (d: DeviceRow, u: UserRow): KnownIdentity =>
      identity(
        d.customerId,
        d.mspId,
        d.locationId,
        d.deviceId,
        { userId: u.userId, userName: u.name, groupId: u.groupId },
        devicePolicy(d, u),
        routesOf(exceptionOf(d), d.customerId),
      );
    if (keepDevices) return new Identities(byAddress, byLocationKey, reuse!.previous.byDeviceKey);
    const byDeviceKey = new Map<string, DeviceEntry>();
    for (const d of devices.byKey.values()) {
      const base = identity(
        d.customerId,
        d.mspId,
        d.locationId,
        d.deviceId,
        null,
        devicePolicy(d, null),
        routesOf(exceptionOf(d), d.customerId),
      );
      byDeviceKey.set(d.key, new DeviceEntry(d, base, forUser, groups.users.get(d.customerId)));
    }
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
 * The resolver's share of a device exception (spec §3 "Exception rule"): its `Use Specific
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
