import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { Database } from '@cordon/db';
import { type Kysely, type RawBuilder, sql } from 'kysely';

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

/**
 * An attempt the throttle let through ({@link LoginThrottle.attempt}): it was counted as a failure before
 * the secret was checked, on these keys; the caller settles it with `succeeded` or `refund` unless it
 * failed.
 */
export interface ThrottleTicket {
  readonly account: string;
  readonly client: string;
  /** The keys the attempt was counted on, with the `blocked_until` (epoch ms) the count set on each. */
  readonly counted: ReadonlyArray<{ readonly key: string; readonly blockedUntil: number }>;
}

/** The answer of {@link LoginThrottle.attempt}: let through (and counted), or refused for `waitMs` ms. */
export type ThrottleAdmission =
  | { readonly admitted: true; readonly ticket: ThrottleTicket }
  | {
      readonly admitted: false;
      /** How long the caller must wait before its next attempt, ms (> 0; `Retry-After` rounds it up to seconds). */
      readonly waitMs: number;
    };

/** Login throttling counters in the database, shared by every API process (docs/security.md "Logins"). */
export interface LoginThrottle {
  /**
   * Checks and counts one attempt at once (docs/security.md "Logins": the check-and-count is atomic, so
   * parallel attempts, from one process or many, cannot all pass before the first is counted). Every
   * applicable key must let it through; it is then counted as a failure on each, in one transaction,
   * before any secret is checked. Refused: nothing is counted.
   * @param account the login e-mail as typed, trimmed and lower-cased (or another namespaced account key)
   * @param client {@link clientKey} of the caller's address (namespaced likewise)
   */
  attempt(account: string, client: string): Promise<ThrottleAdmission>;
  /** The attempt turned out not to be a failure (e.g. the right password, 2FA still to come): uncounts it. */
  refund(ticket: ThrottleTicket): Promise<void>;
  /**
   * A successful login: clears the account-from-client counter, marks the client as known to the account
   * and uncounts the attempt from the other keys.
   */
  succeeded(ticket: ThrottleTicket): Promise<void>;
  /**
   * How long `account` from `client` must still wait, ms; 0 when it may try now. A read only: use
   * {@link LoginThrottle.attempt} to decide on an attempt.
   */
  waitMs(account: string, client: string): Promise<number>;
}

/** Thrown inside the counting transaction to roll it back when a key refuses the attempt. */
class Refused extends Error {
  constructor(readonly waitMs: number) {
    super('throttled');
  }
}

/**
 * `blocked_until` after `n` failures under `rule` at `t`, as SQL: 0 while failures are free, else
 * `t + throttleDelayMs(rule, n)`, one CASE branch per doubling until the longest delay.
 */
function blockedUntilSql(rule: ThrottleRule, n: RawBuilder<number>, t: number): RawBuilder<number> {
  const steps: RawBuilder<unknown>[] = [];
  for (let f = rule.free; f < rule.free + 32; f++) {
    const delay = throttleDelayMs(rule, f);
    if (delay >= rule.maxDelayMs) break;
    steps.push(sql`when ${n} = ${f} then cast(${t + delay} as bigint)`);
  }
  const ladder = steps.length > 0 ? sql.join(steps, sql` `) : sql``;
  return sql<number>`case when ${n} < ${rule.free} then cast(0 as bigint) ${ladder} else cast(${t + rule.maxDelayMs} as bigint) end`;
}

/**
 * Login throttling on table `login_throttle` (migration 0003). Each attempt is checked and counted by
 * one conditional upsert per key (`INSERT … ON CONFLICT DO UPDATE … WHERE blocked_until <= now
 * RETURNING`), all in one transaction: on PostgreSQL the upsert locks the key's row until commit, on
 * SQLite the transaction holds the one connection, so concurrent attempts on a key are counted one after
 * the other and the first one over the limit sets the delay the next one sees (issue 30, "Login limit
 * race"; OWASP ASVS V2.2.1).
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

  /**
   * Counts one failure on `key` unless it is blocked at `t` (a new window when the last one is over),
   * setting the delay the new count calls for, in one statement.
   * @returns the `blocked_until` the count set (epoch ms, 0 while failures are free) when counted;
   *   undefined when the key is blocked (nothing written)
   */
  async function admit(trx: Kysely<Database>, key: string, rule: ThrottleRule, t: number): Promise<number | undefined> {
    const expired = sql<boolean>`login_throttle.window_start <= ${t - rule.windowMs}`;
    const n = sql<number>`(case when ${expired} then 1 else login_throttle.failures + 1 end)`;
    const firstBlock = throttleDelayMs(rule, 1) > 0 ? t + throttleDelayMs(rule, 1) : 0;
    const row = await trx
      .insertInto('login_throttle')
      .values({ key, failures: 1, window_start: t, blocked_until: firstBlock, last_success_at: null })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({
            failures: n,
            window_start: sql<number>`case when ${expired} then cast(${t} as bigint) else login_throttle.window_start end`,
            blocked_until: blockedUntilSql(rule, n, t),
          })
          .where('login_throttle.blocked_until', '<=', t),
      )
      .returning('blocked_until')
      .executeTakeFirst();
    return row === undefined ? undefined : Number(row.blocked_until);
  }

  /**
   * Takes one counted failure back from `key`, and the delay its count set (`blockedUntil`) unless a
   * later failure has set another since: the key was not blocked when the attempt was let through.
   */
  async function uncount(key: string, blockedUntil: number): Promise<void> {
    await db
      .updateTable('login_throttle')
      .set({
        failures: sql<number>`case when failures > 0 then failures - 1 else 0 end`,
        blocked_until: sql<number>`case when blocked_until = ${blockedUntil} then cast(0 as bigint) else blocked_until end`,
      })
      .where('key', '=', key)
      .execute();
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

  /** The keys and rules that apply to `account` from `client` at `t`: a known client skips the account rule. */
  async function applicable(account: string, client: string, t: number) {
    const k = keys(account, client);
    const rows = await db
      .selectFrom('login_throttle')
      .select(['key', 'blocked_until', 'last_success_at'])
      .where('key', 'in', [k.accountClient, k.account, k.client])
      .execute();
    const byKey = new Map(rows.map((r) => [r.key, r]));
    const lastSuccess = byKey.get(k.accountClient)?.last_success_at;
    const known = lastSuccess !== null && lastSuccess !== undefined && t - Number(lastSuccess) < limits.knownClientMs;
    const rules = [
      { key: k.accountClient, rule: limits.accountClient },
      ...(known ? [] : [{ key: k.account, rule: limits.account }]),
      { key: k.client, rule: limits.client },
    ];
    return { rules, byKey };
  }

  /** The longest remaining delay of `rules`' keys at `t`, ms (read in `db`, a transaction or not). */
  async function longestWait(
    reader: Kysely<Database>,
    rules: ReadonlyArray<{ key: string }>,
    t: number,
  ): Promise<number> {
    const rows = await reader
      .selectFrom('login_throttle')
      .select('blocked_until')
      .where(
        'key',
        'in',
        rules.map((r) => r.key),
      )
      .execute();
    return Math.max(0, ...rows.map((r) => Number(r.blocked_until) - t));
  }

  return {
    async attempt(account, client) {
      const t = now();
      const { rules } = await applicable(account, client, t);
      const counted: Array<{ key: string; blockedUntil: number }> = [];
      try {
        await db.transaction().execute(async (trx) => {
          for (const { key, rule } of rules) {
            const blockedUntil = await admit(trx, key, rule, t);
            if (blockedUntil === undefined) throw new Refused(await longestWait(trx, rules, t));
            counted.push({ key, blockedUntil });
          }
        });
      } catch (err) {
        if (err instanceof Refused) return { admitted: false, waitMs: Math.max(1, err.waitMs) };
        throw err;
      }
      await sweep(t);
      return { admitted: true, ticket: { account, client, counted } };
    },

    async refund(ticket) {
      for (const { key, blockedUntil } of ticket.counted) await uncount(key, blockedUntil);
    },

    async succeeded(ticket) {
      const t = now();
      const accountClient = keys(ticket.account, ticket.client).accountClient;
      await db
        .insertInto('login_throttle')
        .values({ key: accountClient, failures: 0, window_start: t, blocked_until: 0, last_success_at: t })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({ failures: 0, window_start: t, blocked_until: 0, last_success_at: t }),
        )
        .execute();
      for (const { key, blockedUntil } of ticket.counted) if (key !== accountClient) await uncount(key, blockedUntil);
    },

    async waitMs(account, client) {
      const t = now();
      const { rules, byKey } = await applicable(account, client, t);
      let until = 0;
      for (const { key } of rules) until = Math.max(until, Number(byKey.get(key)?.blocked_until ?? 0));
      return Math.max(0, until - t);
    },
  };
}
