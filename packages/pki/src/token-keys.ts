/** The shortest access-token key accepted, in bytes: HS256 needs a key of at least the hash size (RFC 7518 §3.2). */
export const JWT_KEY_MIN_BYTES = 32;

/**
 * Parses access-token keys written one per line (also accepted: separated by commas or spaces), each
 * the base64url (or base64) text of at least {@link JWT_KEY_MIN_BYTES} random bytes; blank lines and
 * `#` comments are skipped (docs/security.md "Tokens and secrets at rest"). Here, beside the CA
 * secret, so that `cordon config check` reads the key file without loading the API.
 * @param source names the file or variable in error messages
 * @returns the keys, the first the signing one
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
