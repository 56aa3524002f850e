import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { type Hs256VerifyOptions, verifyHs256Jwt } from './jwt-verify.ts';

const secret = randomBytes(32);
const other = randomBytes(32);
const KID = 'k1';
const NOW = Date.UTC(2025, 5, 15, 12, 0, 0);
const nowS = Math.floor(NOW / 1000);
const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** A compact JWS of `header` and `payload` (objects, or raw segment text), HMAC-SHA-256 with `key`. */
function raw(header: unknown, payload: unknown, key: Uint8Array = secret): string {
  const head = typeof header === 'string' ? header : b64(header);
  const body = typeof payload === 'string' ? payload : b64(payload);
  const tag = createHmac('sha256', key).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${tag}`;
}

const claims = { sub: '7', jti: '0.abc', iat: nowS - 60, exp: nowS + 3600 };
const header = { alg: 'HS256', typ: 'JWT', kid: KID };

const options: Hs256VerifyOptions = {
  keyOf: (kid) => (kid === KID ? createSecretKey(secret) : undefined),
  now: NOW,
  maxTokenAge: 12 * 3600,
  clockTolerance: 30,
  requiredClaims: ['iat', 'exp', 'jti', 'sub'],
};

/** jose's verdict with the options the API gave it before (the reference this verifier replaces). */
async function jose(token: string, audience?: string): Promise<boolean> {
  try {
    await jwtVerify(
      token,
      (h) => {
        if (h.kid !== KID) throw new Error('unknown kid');
        return createSecretKey(secret);
      },
      {
        algorithms: ['HS256'],
        currentDate: new Date(NOW),
        maxTokenAge: options.maxTokenAge,
        clockTolerance: options.clockTolerance,
        requiredClaims: [...options.requiredClaims],
        ...(audience === undefined ? {} : { audience }),
      },
    );
    return true;
  } catch {
    return false;
  }
}

function ours(token: string, audience?: string): boolean {
  try {
    verifyHs256Jwt(token, { ...options, ...(audience === undefined ? {} : { audience }) });
    return true;
  } catch {
    return false;
  }
}

describe('verifyHs256Jwt (the bearer check, RFC 7515 / 7519 / 8725)', () => {
  it("answers as jose's jwtVerify did on genuine, forged and malformed tokens", async () => {
    const genuine = await new SignJWT({ name: 'x' })
      .setProtectedHeader(header)
      .setSubject('7')
      .setJti('0.abc')
      .setIssuedAt(nowS - 60)
      .setExpirationTime(nowS + 3600)
      .sign(secret);
    const [h, p, s] = genuine.split('.') as [string, string, string];
    const cases: Array<[string, string, boolean]> = [
      ['genuine (jose-signed)', genuine, true],
      ['genuine (raw)', raw(header, claims), true],
      ['another key', raw(header, claims, other), false],
      ['unknown kid', raw({ ...header, kid: 'k2' }, claims), false],
      ['no kid', raw({ alg: 'HS256' }, claims), false],
      ['alg none, no signature', `${b64({ alg: 'none', kid: KID })}.${b64(claims)}.`, false],
      ['alg HS512', raw({ ...header, alg: 'HS512' }, claims), false],
      ['alg hs256 (case)', raw({ ...header, alg: 'hs256' }, claims), false],
      ['crit b64 false', raw({ ...header, b64: false, crit: ['b64'] }, claims), false],
      ['crit unknown', raw({ ...header, crit: ['x'], x: 1 }, claims), false],
      ['payload changed', `${h}.${b64({ ...claims, sub: '1' })}.${s}`, false],
      ['signature truncated', `${h}.${p}.${s.slice(0, -2)}`, false],
      ['signature empty', `${h}.${p}.`, false],
      ['two segments', `${h}.${p}`, false],
      ['four segments', `${genuine}.x`, false],
      ['header not JSON', raw('bm90IGpzb24', claims), false],
      ['header an array', raw(['HS256'], claims), false],
      ['payload an array', raw(header, [1]), false],
      ['payload null', raw(header, 'bnVsbA'), false],
      ['payload not base64url', raw(header, 'ab+c'), false],
      ['payload bad UTF-8', raw(header, Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')), false],
      ['missing sub', raw(header, { ...claims, sub: undefined }), false],
      ['missing jti', raw(header, { ...claims, jti: undefined }), false],
      ['missing iat', raw(header, { ...claims, iat: undefined }), false],
      ['missing exp', raw(header, { ...claims, exp: undefined }), false],
      ['exp a string', raw(header, { ...claims, exp: String(nowS + 3600) }), false],
      ['iat a string', raw(header, { ...claims, iat: String(nowS) }), false],
      ['expired 31 s ago', raw(header, { ...claims, exp: nowS - 31 }), false],
      ['expired 30 s ago (tolerance)', raw(header, { ...claims, exp: nowS - 30 }), false],
      ['expired 29 s ago (within tolerance)', raw(header, { ...claims, exp: nowS - 29 }), true],
      ['nbf in 31 s', raw(header, { ...claims, nbf: nowS + 31 }), false],
      ['nbf in 30 s', raw(header, { ...claims, nbf: nowS + 30 }), true],
      ['nbf a string', raw(header, { ...claims, nbf: 'soon' }), false],
      ['iat 31 s ahead', raw(header, { ...claims, iat: nowS + 31 }), false],
      ['iat 30 s ahead', raw(header, { ...claims, iat: nowS + 30 }), true],
      ['iat 12 h 31 s ago', raw(header, { ...claims, iat: nowS - 12 * 3600 - 31 }), false],
      ['iat 12 h 30 s ago', raw(header, { ...claims, iat: nowS - 12 * 3600 - 30 }), true],
      ['a non-ASCII header', raw(`${b64({ ...header, n: 'é' })}`, claims), true],
    ];
    for (const [name, token, valid] of cases) {
      expect({ name, jose: await jose(token) }).toEqual({ name, jose: valid });
      expect({ name, ours: ours(token) }).toEqual({ name, ours: valid });
    }
  });

  it('checks the audience when asked, as jose did', async () => {
    const cases: Array<[string, string, boolean]> = [
      ['aud string', raw(header, { ...claims, aud: 'cordon:2fa-enrol' }), true],
      ['aud array', raw(header, { ...claims, aud: ['a', 'cordon:2fa-enrol'] }), true],
      ['aud other', raw(header, { ...claims, aud: 'a' }), false],
      ['aud missing', raw(header, claims), false],
      ['aud a number', raw(header, { ...claims, aud: 1 }), false],
    ];
    for (const [name, token, valid] of cases) {
      expect({ name, jose: await jose(token, 'cordon:2fa-enrol') }).toEqual({ name, jose: valid });
      expect({ name, ours: ours(token, 'cordon:2fa-enrol') }).toEqual({ name, ours: valid });
    }
  });
});
