import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Format tag of a sealed value; a new scheme gets a new tag, so old rows stay readable. */
const VERSION = 'v1';
/** HKDF `info` of the root CA's key: binds the derived key to that one use. */
const CA_KEY_INFO = 'cordon root-ca private key v1';

/**
 * Seals `plaintext` with AES-256-GCM (NIST SP 800-38D) under a key derived from `secret` by
 * HKDF-SHA256 (RFC 5869) with a fresh 16-byte salt and `purpose` as its info (default: the root
 * CA's key); a fresh 12-byte IV per seal.
 * @returns `v1.<salt>.<iv>.<tag>.<ciphertext>`, each part base64url
 */
export function seal(plaintext: Buffer, secret: Buffer, purpose: string = CA_KEY_INFO): string {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(secret, salt, purpose), iv);
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
export function unseal(sealed: string, secret: Buffer, purpose: string = CA_KEY_INFO): Buffer {
  const parts = sealed.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION) throw new Error('sealed value: unknown format');
  const [salt, iv, tag, ciphertext] = parts.slice(1).map((p) => Buffer.from(p, 'base64url')) as [
    Buffer,
    Buffer,
    Buffer,
    Buffer,
  ];
  const decipher = createDecipheriv('aes-256-gcm', deriveKey(secret, salt, purpose), iv);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    throw new Error(`a sealed value (${purpose}) cannot be opened: the CA secret is not the one it was sealed with`);
  }
}

function deriveKey(secret: Buffer, salt: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, salt, Buffer.from(purpose), 32));
}

/** Seals and opens the secrets Cordon stores in its database (SMTP passwords, TOTP secrets). */
export interface SecretBox {
  /** @returns `sealed:` followed by {@link seal}'s text */
  seal(text: string): string;
  /** Opens a value of {@link SecretBox.seal}. @throws Error for another secret or a damaged value */
  open(stored: string): string;
}

/** The prefix that tells a sealed stored secret from a plain one. */
export const SEALED_PREFIX = 'sealed:';

/**
 * A {@link SecretBox} under `secret` (the deployment's CA secret, kept outside the database:
 * docs/security.md "Tokens and secrets at rest"), with its own HKDF purpose so these values and the
 * CA key never share a derived key.
 */
export function createSecretBox(secret: Buffer): SecretBox {
  const purpose = 'cordon stored secret v1';
  return {
    seal: (text) => SEALED_PREFIX + seal(Buffer.from(text, 'utf8'), secret, purpose),
    open: (stored) => unseal(stored.slice(SEALED_PREFIX.length), secret, purpose).toString('utf8'),
  };
}
