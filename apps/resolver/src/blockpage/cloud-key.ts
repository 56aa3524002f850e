import type { ChangeFeed, DatabaseHandle } from '@cordon/db';
import { CLOUD_KEY_PATTERN, Constants } from '@cordon/shared';
import { sql } from 'kysely';

/** Why a key entered on the block page started no bypass (the page says it in one generic sentence). */
export type KeyRefusal = 'invalid' | 'unusable';

/** A bypass the block page started: its key and end, epoch ms. */
export interface StartedBypass {
  readonly keyId: number;
  readonly expiresAt: number;
}

/**
 * Redeems cloud key `text` of customer `customerId` for client `clientIp` (docs/architecture.md "Block page"): the key
 * must exist for that customer, be active, be inside its validity window at `now` and have uses left
 * (`max_uses` null = unlimited). In one transaction the use is counted (a conditional increment, so
 * two clients racing for the last use cannot both get it), the bypass row written for the key's
 * `expires_after_s`, and expired bypass rows deleted; then `bypasses` is published so every resolver
 * reloads its bypass part (within a second: docs/architecture.md "Change propagation").
 * @param clientIp the client's canonical address (`canonicalIp`)
 * @param now epoch ms
 * @returns the started bypass, or the refusal: `invalid` (malformed text), `unusable` (unknown,
 *   inactive, outside its window, or used up: one answer for all, so the page leaks nothing)
 */
export async function redeemCloudKey(
  db: DatabaseHandle,
  changes: ChangeFeed,
  customerId: number,
  clientIp: string,
  text: string,
  now: number,
): Promise<StartedBypass | KeyRefusal> {
  const key = text.trim();
  if (key.length < Constants.textMin || key.length > Constants.textMax || !CLOUD_KEY_PATTERN.test(key)) {
    return 'invalid';
  }
  const at = new Date(now).toISOString();
  const started = await db.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('cloud_keys')
      .select(['id', 'expires_after_s'])
      .where('customer_id', '=', customerId)
      .where('key', '=', key)
      .where('active', '=', 1)
      .where((eb) => eb.or([eb('valid_from', 'is', null), eb('valid_from', '<=', at)]))
      .where((eb) => eb.or([eb('valid_to', 'is', null), eb('valid_to', '>', at)]))
      .executeTakeFirst();
    if (!row) return null;
    const counted = await trx
      .updateTable('cloud_keys')
      .set({ times_used: sql`times_used + 1` })
      .where('id', '=', row.id)
      .where((eb) => eb.or([eb('max_uses', 'is', null), eb('times_used', '<', eb.ref('max_uses'))]))
      .executeTakeFirst();
    if (Number(counted.numUpdatedRows) === 0) return null;
    const expiresAt = now + Number(row.expires_after_s) * 1000;
    await trx.deleteFrom('bypasses').where('expires_at', '<=', now).execute();
    await trx
      .insertInto('bypasses')
      .values({
        customer_id: customerId,
        cloud_key_id: row.id,
        client_ip: clientIp,
        started_at: now,
        expires_at: expiresAt,
      })
      .execute();
    return { keyId: row.id, expiresAt };
  });
  if (started === null) return 'unusable';
  await changes.publish('bypasses');
  return started;
}

/** Failed cloud-key attempts one client may make per window before the block page stops checking. */
export const KEY_ATTEMPTS = { maxFailures: 10, windowMs: 15 * 60_000, maxClients: 10_000 } as const;

/**
 * Slows down guessing of cloud keys at the block page (docs/security.md "Logins"; the same idea as
 * the login throttle): at most `maxFailures` refused keys per client address per `windowMs`; past
 * that, keys from that client are refused without being looked up until the window ends. Bounded to
 * `maxClients` addresses (the oldest window is forgotten first), in memory: a block page serves the
 * clients that resolve to it, and a restart forgives at most one window.
 */
export class KeyAttemptLimiter {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(private readonly limits: { maxFailures: number; windowMs: number; maxClients: number } = KEY_ATTEMPTS) {}

  /** True when `clientIp` may try a key at `now` (epoch ms). */
  allows(clientIp: string, now: number): boolean {
    const w = this.windows.get(clientIp);
    if (w === undefined || now - w.start >= this.limits.windowMs) return true;
    return w.failures < this.limits.maxFailures;
  }

  /** Counts one refused key of `clientIp` at `now`. */
  fail(clientIp: string, now: number): void {
    let w = this.windows.get(clientIp);
    if (w === undefined || now - w.start >= this.limits.windowMs) {
      this.windows.delete(clientIp);
      if (this.windows.size >= this.limits.maxClients) {
        const oldest = this.windows.keys().next().value;
        if (oldest !== undefined) this.windows.delete(oldest);
      }
      w = { start: now, failures: 0 };
      this.windows.set(clientIp, w);
    }
    w.failures += 1;
  }

  /** Forgets `clientIp`'s failures (a key was accepted). */
  succeed(clientIp: string): void {
    this.windows.delete(clientIp);
  }
}
