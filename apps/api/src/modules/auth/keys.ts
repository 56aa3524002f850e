import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { JWT_KEY_MIN_BYTES, parseJwtKeys } from '@cordon/pki/secrets';
import type { JwtKey, JwtKeyRing } from '../../types.ts';

export type { JwtKey, JwtKeyRing };
export { JWT_KEY_MIN_BYTES, parseJwtKeys };

/** The `kid` of a key (see {@link JwtKey.kid}). */
export function kidOf(secret: Uint8Array): string {
  return createHash('sha256').update(secret).digest('base64url').slice(0, 16);
}

/**
 * A key ring of `secrets`, the first signing.
 * @throws Error when there is no key, or one is shorter than {@link JWT_KEY_MIN_BYTES}
 */
export function jwtKeyRing(secrets: readonly Uint8Array[]): JwtKeyRing {
  const keys = secrets.map((secret) => {
    if (secret.byteLength < JWT_KEY_MIN_BYTES) {
      throw new Error(`A JWT signing key must hold at least ${JWT_KEY_MIN_BYTES} bytes, got ${secret.byteLength}.`);
    }
    return { kid: kidOf(secret), secret };
  });
  const signing = keys[0];
  if (!signing) throw new Error('No JWT signing key.');
  return { signing, byKid: new Map(keys.map((k) => [k.kid, k])) };
}

/** A new key file's text: one key of 32 random bytes, base64url, with a comment on rotation. */
function newKeyFileText(): string {
  return [
    '# Cordon access-token signing keys (HS256), base64url, one per line: the first signs, all verify.',
    '# Rotate: add a new key as the first line, restart, remove the old line after 12 hours.',
    randomBytes(JWT_KEY_MIN_BYTES).toString('base64url'),
    '',
  ].join('\n');
}

/**
 * Creates `path` with a fresh key, mode 0600, unless it exists. Safe when two processes start at once:
 * the file is written whole under a temporary name and linked into place (link fails if it exists).
 */
function createKeyFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, newKeyFileText(), { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(tmp, 0o600);
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(tmp);
  }
}

/**
 * The deployment's access-token keys (docs/security.md "Tokens and secrets at rest"): from `keys` (the text of `CORDON_JWT_KEY`) when
 * given, else from `file`, which is created with one random key (mode 0600) on first start.
 * @param opts.file key file path (`--jwt-key-file`, default `<data-dir>/jwt.key`)
 * @param opts.keys key text from the environment; wins over the file
 * @returns the ring and where it came from (`env` or `file`) and whether the file was created now
 * @throws Error for an unreadable file, a malformed or short key, or no key
 */
export function loadJwtKeyRing(opts: { file: string; keys?: string | undefined }): {
  ring: JwtKeyRing;
  source: 'env' | 'file';
  created: boolean;
} {
  if (opts.keys !== undefined && opts.keys.trim() !== '') {
    return { ring: jwtKeyRing(parseJwtKeys(opts.keys, 'CORDON_JWT_KEY')), source: 'env', created: false };
  }
  const created = !existsSync(opts.file);
  if (created) createKeyFile(opts.file);
  return { ring: jwtKeyRing(parseJwtKeys(readFileSync(opts.file, 'utf8'), opts.file)), source: 'file', created };
}
