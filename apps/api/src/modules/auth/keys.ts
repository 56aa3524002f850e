import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { JwtKey, JwtKeyRing } from '../../types.ts';

export type { JwtKey, JwtKeyRing };

/** The shortest key accepted, in bytes: HS256 needs a key of at least the hash size (RFC 7518 §3.2). */
export const JWT_KEY_MIN_BYTES = 32;

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

/**
 * Parses keys written one per line (also accepted: separated by commas or spaces), each the base64url
 * (or base64) text of at least {@link JWT_KEY_MIN_BYTES} random bytes; blank lines and `#` comments are skipped.
 * @param source names the file or variable in error messages
 * @throws Error naming `source` for a malformed or short key, or when there is none
 */
export function parseJwtKeys(text: string, source: string): Uint8Array[] {
  const keys: Uint8Array[] = [];
  for (const line of text.split('\n')) {
    for (const word of line.replace(/#.*$/, '').split(/[\s,]+/)) {
      if (word === '') continue;
      if (!/^[A-Za-z0-9_+/-]+=*$/.test(word)) throw new Error(`${source}: a key is not base64url text.`);
      const bytes = Buffer.from(word.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), 'base64url');
      if (bytes.byteLength < JWT_KEY_MIN_BYTES) {
        throw new Error(`${source}: a key holds ${bytes.byteLength} bytes; at least ${JWT_KEY_MIN_BYTES} are needed.`);
      }
      keys.push(new Uint8Array(bytes));
    }
  }
  if (keys.length === 0) throw new Error(`${source}: no key found.`);
  return keys;
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
