import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';

/** Options of {@link verifyHs256Jwt}: the checks of jose's `jwtVerify` the API asks for. */
export interface Hs256VerifyOptions {
  /** The key of a `kid` header, or undefined for a kid the ring does not hold. */
  keyOf: (kid: string) => KeyObject | undefined;
  /** The clock, epoch ms. */
  now: number;
  /** Claims that must be present (`iat` is whenever `maxTokenAge` is given, `aud` whenever `audience` is). */
  requiredClaims: readonly string[];
  /** Oldest accepted `iat`, s before `now` (beyond `clockTolerance`). */
  maxTokenAge: number;
  /** Tolerance on `exp`, `nbf` and `iat`, s. */
  clockTolerance: number;
  /** When given, `aud` must be this string or an array holding it. */
  audience?: string;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const BASE64URL = /^[A-Za-z0-9_-]*$/;
/** Bytes of an HMAC-SHA-256 tag. */
const HS256_BYTES = 32;

/** Bytes of a strict base64url segment (no padding, no other character), or undefined. */
function base64url(segment: string): Buffer | undefined {
  if (!BASE64URL.test(segment) || segment.length % 4 === 1) return undefined;
  return Buffer.from(segment, 'base64url');
}

/** A JSON object of a base64url segment of strict UTF-8 (a plain object, not an array or null), or undefined. */
function jsonObject(segment: string): Record<string, unknown> | undefined {
  const bytes = base64url(segment);
  if (bytes === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(STRICT_UTF8.decode(bytes));
  } catch {
    return undefined;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}

/**
 * Verifies a compact JWS JWT signed HS256 (RFC 7515 §7.1, RFC 7519 §7.2, RFC 8725 §3.1), synchronously
 * with node:crypto's HMAC: jose's `jwtVerify` on WebCrypto imported the key and verified
 * asynchronously on every request, ≈ 0.3 ms of the API's CPU a request under load (bench/README.md
 * "API reads"). It applies the checks `jwtVerify` applied with `algorithms: ['HS256']` and the
 * options here: three base64url segments (strict: no padding or other characters); a header that is
 * a JSON object with `alg` exactly `HS256`, no `crit` (no extension is understood) and a `kid` the
 * ring holds; the HMAC-SHA-256 of the first two segments, compared in constant time; a payload that
 * is a JSON object with `requiredClaims` present; `iat`, `exp`, `nbf` numbers when present; `nbf`
 * not after `now + clockTolerance`; `exp` after `now − clockTolerance`; `iat` neither more than
 * `maxTokenAge + clockTolerance` s in the past nor more than `clockTolerance` s in the future (times
 * in whole seconds); `aud` when `audience` is given.
 * @returns the payload (the claims set)
 * @throws Error for any failure, with a message for logs only (callers answer one 401 for all)
 */
export function verifyHs256Jwt(token: string, options: Hs256VerifyOptions): Record<string, unknown> {
  const parts = token.split('.');
  if (parts.length !== 3) throw new Error('not a compact JWS');
  const [head, body, tag] = parts as [string, string, string];
  const header = jsonObject(head);
  if (header === undefined) throw new Error('bad header');
  if (header.alg !== 'HS256') throw new Error('alg not allowed');
  if (header.crit !== undefined) throw new Error('crit not understood');
  const key = typeof header.kid === 'string' ? options.keyOf(header.kid) : undefined;
  if (key === undefined) throw new Error('unknown kid');
  const signature = base64url(tag);
  if (signature === undefined || signature.length !== HS256_BYTES) throw new Error('bad signature');
  if (!BASE64URL.test(body)) throw new Error('bad payload');
  const expected = createHmac('sha256', key).update(`${head}.${body}`, 'ascii').digest();
  if (!timingSafeEqual(expected, signature)) throw new Error('bad signature');
  const claims = jsonObject(body);
  if (claims === undefined) throw new Error('bad payload');
  const required = new Set([...options.requiredClaims, 'iat', ...(options.audience === undefined ? [] : ['aud'])]);
  for (const claim of required) if (!Object.hasOwn(claims, claim)) throw new Error(`missing ${claim}`);
  const now = Math.floor(options.now / 1000);
  const tolerance = options.clockTolerance;
  const numeric = (claim: string): number | undefined => {
    const value = claims[claim];
    if (value === undefined) return undefined;
    if (typeof value !== 'number') throw new Error(`${claim} not a number`);
    return value;
  };
  const nbf = numeric('nbf');
  if (nbf !== undefined && nbf > now + tolerance) throw new Error('not yet valid');
  const exp = numeric('exp');
  if (exp !== undefined && exp <= now - tolerance) throw new Error('expired');
  const iat = numeric('iat') as number;
  const age = now - iat;
  if (age - tolerance > options.maxTokenAge) throw new Error('too old');
  if (age < -tolerance) throw new Error('issued in the future');
  if (options.audience !== undefined) {
    const aud = claims.aud;
    const ok =
      typeof aud === 'string' ? aud === options.audience : Array.isArray(aud) && aud.includes(options.audience);
    if (!ok) throw new Error('audience');
  }
  return claims;
}
