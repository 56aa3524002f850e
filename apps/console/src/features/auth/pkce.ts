import { Constants } from '@cordon/shared';

const STATE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Hex encoding of bytes, lower case. */
function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** base64url without padding (RFC 4648 §5), as PKCE's S256 challenge uses (RFC 7636 §4.2). */
export function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A PKCE code verifier of 128 lower-case hex characters (spec-notes §9). */
export function createCodeVerifier(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(Constants.pkceVerifierLength / 2)));
}

/** An OAuth state of 40 alphanumeric characters (spec-notes §9). */
export function createState(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(Constants.oauthStateLength));
  // The slight modulo bias over 256 does not matter for a state value (it only has to be unguessable).
  return Array.from(bytes, (b) => STATE_ALPHABET[b % STATE_ALPHABET.length]).join('');
}

/** The S256 code challenge of a verifier: base64url(SHA-256(ASCII(verifier))) (RFC 7636 §4.2). */
export async function codeChallengeS256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64Url(new Uint8Array(digest));
}
