import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Format tag of a sealed value; a new scheme gets a new tag, so old rows stay readable. */
const VERSION = 'v1';
/** HKDF `info`: binds the derived key to this one use. */
const INFO = Buffer.from('cordon root-ca private key v1');

/**
 * Seals `plaintext` with AES-256-GCM (NIST SP 800-38D) under a key derived from `secret` by
 * HKDF-SHA256 (RFC 5869) with a fresh 16-byte salt; a fresh 12-byte IV per seal.
 * @returns `v1.<salt>.<iv>.<tag>.<ciphertext>`, each part base64url
 */
export function seal(plaintext: Buffer, secret: Buffer): string {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(secret, salt), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [VERSION, salt, iv, cipher.getAuthTag(), ciphertext]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/**
 * Opens a value of {@link seal}.
 * @throws Error when the format is unknown or the secret is not the one it was sealed with
 *   (GCM's tag check fails: a wrong secret is never mistaken for a key)
 */
export function unseal(sealed: string, secret: Buffer): Buffer {
  const parts = sealed.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION) throw new Error('sealed value: unknown format');
  const [salt, iv, tag, ciphertext] = parts.slice(1).map((p) => Buffer.from(p, 'base64url')) as [
    Buffer,
    Buffer,
    Buffer,
    Buffer,
  ];
  const decipher = createDecipheriv('aes-256-gcm', deriveKey(secret, salt), iv);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    throw new Error('the root CA key cannot be opened: the CA secret is not the one it was sealed with');
  }
}

function deriveKey(secret: Buffer, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, salt, INFO, 32));
}
