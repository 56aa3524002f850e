import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { Database } from '@cordon/db';
import { type Kysely, sql } from 'kysely';

/**
 * One throttle rule: `free` failures per window pass without delay; from then on every further failure
 * makes the key wait 2^(failures − free + 1) s before its next attempt, at most `maxDelayMs`.
 */
export interface ThrottleRule {
  /** Failures allowed in a window before attempts are delayed. */
  free: number;
  /** Window length, ms; failures older than the window's start + length are forgotten. */
  windowMs: number;
  /** Longest delay, ms. */
  maxDelayMs: number;
}

/** The three rules of login throttling and how long a successful login marks a client as known. */
export interface LoginThrottleLimits {
  /** One account from one client: slows a password guesser, never the owner on another client. */
  accountClient: ThrottleRule;
  /** One account from any client (a distributed guesser); known clients of the account are exempt. */
  account: ThrottleRule;
  /** One client against any account (a credential-stuffing source). */
  client: ThrottleRule;
  /** A client that logged into an account within this many ms is known to it (exempt from `account`). */
  knownClientMs: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * The limits of docs/api.md "Auth" ("per account and per IP rate limits on login") as throttling rather than
 * lock-out (docs/security.md; docs/decisions.md "Login throttling").
 */
export const LOGIN_THROTTLE: LoginThrottleLimits = {
  accountClient: { free: 5, windowMs: 24 * HOUR, maxDelayMs: 15 * MINUTE },
  account: { free: 100, windowMs: HOUR, maxDelayMs: 15 * MINUTE },
  client: { free: 100, windowMs: HOUR, maxDelayMs: 15 * MINUTE },
  knownClientMs: 30 * 24 * HOUR,
};

/** The delay after the `failures`-th failure under `rule`, ms (0 while failures are free). */
export function throttleDelayMs(rule: ThrottleRule, failures: number): number {
  if (failures < rule.free) return 0;
  const exponent = Math.min(failures - rule.free + 1, 30);
  return Math.min(2 ** exponent * 1000, rule.maxDelayMs);
}

/** The groups of one side of `::` in IPv6 text (an embedded IPv4 tail gives two groups). */
function hextets(part: string): number[] {
  if (part === '') return [];
  return part.split(':').flatMap((g) => {
    if (!g.includes('.')) return [Number.parseInt(g, 16)];
    const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number);
    return [(a << 8) | b, (c << 8) | d];
  });
}

/** The 8 groups of an IPv6 address as numbers (a zone id is ignored), or null when it is not IPv6 text. */
function ipv6Groups(address: string): number[] | null {
  const text = address.split('%')[0] ?? '';
  if (!isIPv6(text)) return null;
  const gap = text.indexOf('::');
  if (gap < 0) return hextets(text);
  const left = hextets(text.slice(0, gap));
  const right = hextets(text.slice(gap + 2));
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The throttle key of a client address (docs/security.md): an IPv4 address as itself; an IPv6 address by
 * its /64 (one subscriber's network: rotating addresses inside it does not evade the limit), written
 * `2001:db8:1:2::/64`; an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) as its IPv4 address.
 * Anything else (no address) is used as given.
 */
export function clientKey(ip: string): string {
  if (isIPv4(ip)) return ip;
  const groups = ipv6Groups(ip);
  if (!groups) return ip;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** Throttle keys are stored hashed: a mistyped password in the e-mail field is not kept readable. */
function rowKey(kind: string, value: string): string {
  return `${kind}:${createHash('sha256').update(value).digest('base64url')}`;
}

/** Login throttling counters in the database, shared by every API process (docs/security.md). */
export interface LoginThrottle {
  /**
   * How long `account` from `client` must still wait before its credentials are checked, ms; 0 when it
   * may try now.
   * @param account the login e-mail as typed, trimmed and lower-cased
   * @param client {@link clientKey} of the caller's address
   */
  waitMs(account: string, client: string): Promise<number>;
  /** Counts a failed login in all three rules and sets the delays they call for. */
  failed(account: string, client: string): Promise<void>;
  /** A successful login: clears the account-from-client counter and marks the client as known to the account. */
  succeeded(account: string, client: string): Promise<void>;
}

/**
 * Login throttling on table `login_throttle` (migration 0003): counters are updated by single atomic
 * upserts, so concurrent API processes count every failure.
 * @param now clock, epoch ms
 */
export function createLoginThrottle(
  db: Kysely<Database>,
  now: () => number,
  limits: LoginThrottleLimits = LOGIN_THROTTLE,
): LoginThrottle {
  const keys = (account: string, client: string) => ({
    accountClient: rowKey('account-client', `${account}\n${client}`),
    account: rowKey('account', account),
    client: rowKey('client', client),
  });
  let lastSweep = 0;

  /** Adds one failure to `key` under `rule` (a new window when the last one is over); returns the count. */
  async function countFailure(key: string, rule: ThrottleRule, t: number): Promise<number> {
    const expired = sql<boolean>`login_throttle.window_start <= ${t - rule.windowMs}`;
    const row = await db
      .insertInto('login_throttle')
      .values({ key, failures: 1, window_start: t, blocked_until: 0, last_success_at: null })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          failures: sql<number>`case when ${expired} then 1 else login_throttle.failures + 1 end`,
          window_start: sql<number>`case when ${expired} then ${t} else login_throttle.window_start end`,
        }),
      )
      .returning('failures')
      .executeTakeFirstOrThrow();
    const failures = Number(row.failures);
    const delay = throttleDelayMs(rule, failures);
    if (delay > 0) {
      await db
        .updateTable('login_throttle')
        .set({ blocked_until: t + delay })
        .where('key', '=', key)
        .where('blocked_until', '<', t + delay)
        .execute();
    }
    return failures;
  }

  /** Drops rows whose window, delay and known-client mark are all over; at most once a minute per process. */
  async function sweep(t: number): Promise<void> {
    if (t - lastSweep < MINUTE) return;
    lastSweep = t;
    const longestWindow = Math.max(limits.accountClient.windowMs, limits.account.windowMs, limits.client.windowMs);
    await db
      .deleteFrom('login_throttle')
      .where('window_start', '<', t - longestWindow)
      .where('blocked_until', '<', t)
      .where((eb) => eb.or([eb('last_success_at', 'is', null), eb('last_success_at', '<', t - limits.knownClientMs)]))
      .execute();
  }

  return {
    async waitMs(account, client) {
      const t = now();
      const k = keys(account, client);
      const rows = await db
        .selectFrom('login_throttle')
        .select(['key', 'blocked_until', 'last_success_at'])
        .where('key', 'in', [k.accountClient, k.account, k.client])
        .execute();
      const byKey = new Map(rows.map((r) => [r.key, r]));
      const lastSuccess = byKey.get(k.accountClient)?.last_success_at;
      const known = lastSuccess !== null && lastSuccess !== undefined && t - Number(lastSuccess) < limits.knownClientMs;
      const applicable = known ? [k.accountClient, k.client] : [k.accountClient, k.account, k.client];
      let until = 0;
      for (const key of applicable) until = Math.max(until, Number(byKey.get(key)?.blocked_until ?? 0));
      return Math.max(0, until - t);
    },

    async failed(account, client) {
      const t = now();
      const k = keys(account, client);
      await countFailure(k.accountClient, limits.accountClient, t);
      await countFailure(k.account, limits.account, t);
      await countFailure(k.client, limits.client, t);
      await sweep(t);
    },

    async succeeded(account, client) {
      const t = now();
      const key = keys(account, client).accountClient;
      await db
        .insertInto('login_throttle')
        .values({ key, failures: 0, window_start: t, blocked_until: 0, last_success_at: t })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({ failures: 0, window_start: t, blocked_until: 0, last_success_at: t }),
        )
        .execute();
    },
  };
}
