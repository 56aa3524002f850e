import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The fewest bytes of secret accepted (256 bits once decoded, or that many characters of passphrase). */
const MIN_SECRET_BYTES = 32;

/**
 * The deployment's CA secret (docs/decisions.md "Root CA"): the key-derivation input that seals the
 * root CA's private key in the database. Like the access-token keys it lives outside the database:
 * `CORDON_CA_SECRET` when set, else the file (`<data-dir>/ca.key-secret` by default), created on
 * the first start with 32 random bytes as base64url, mode 0600.
 * @param opts.file secret file path (`--ca-secret-file`)
 * @param opts.secret secret text from the environment; wins over the file
 * @returns the secret bytes, where they came from and whether the file was created now
 * @throws Error for an unreadable file or a secret shorter than 32 bytes
 */
export function loadCaSecret(opts: { file: string; secret?: string | undefined }): {
  secret: Buffer;
  source: 'env' | 'file';
  created: boolean;
} {
  if (opts.secret !== undefined && opts.secret.trim() !== '') {
    return { secret: checked(opts.secret.trim(), 'CORDON_CA_SECRET'), source: 'env', created: false };
  }
  const created = !existsSync(opts.file);
  if (created) {
    mkdirSync(dirname(opts.file), { recursive: true, mode: 0o700 });
    writeFileSync(opts.file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(opts.file, 0o600);
  }
  return { secret: checked(readFileSync(opts.file, 'utf8').trim(), opts.file), source: 'file', created };
}

/** The secret's bytes (its UTF-8 text: a base64url key or a long passphrase both work). */
function checked(text: string, where: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new Error(`${where}: the CA secret must be at least ${MIN_SECRET_BYTES} characters`);
  }
  return bytes;
}
