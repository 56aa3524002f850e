import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The prefix of a signing secret as shown to its owner (Standard Webhooks "Signature scheme"). */
export const SECRET_PREFIX = 'whsec_';

/** How far a receiver should accept a `webhook-timestamp` from its clock, seconds (Standard Webhooks: 5 minutes). */
export const TIMESTAMP_TOLERANCE_S = 300;

/** A new signing secret: `whsec_` + base64 of 32 random bytes (docs/api.md "Webhooks"). */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key of `secret`: the bytes its base64 part decodes to (Standard Webhooks "Signature scheme"). */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/**
 * The `webhook-signature` header of one delivery (Standard Webhooks; docs/api.md "Webhooks"):
 * `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)), the key being the secret's
 * base64 part decoded.
 * @param id the `webhook-id` header (the event id)
 * @param timestamp the `webhook-timestamp` header, epoch seconds
 * @param body the exact request body sent
 */
export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * What a receiver does (docs/api.md "Webhooks" "Verifying a delivery"): true when one of the
 * space-separated `v1,` signatures of `signatureHeader` matches and `timestamp` is within
 * {@link TIMESTAMP_TOLERANCE_S} of `nowS` (replay protection). Comparison in constant time.
 * @param nowS the receiver's clock, epoch seconds
 */
export function verifySignature(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  nowS: number,
): boolean {
  const ts = Number(headers.timestamp);
  if (!Number.isInteger(ts) || Math.abs(nowS - ts) > TIMESTAMP_TOLERANCE_S) return false;
  const expected = Buffer.from(signPayload(secret, headers.id, ts, body));
  return headers.signature.split(' ').some((s) => {
    const got = Buffer.from(s);
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
