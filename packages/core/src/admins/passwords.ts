import { randomBytes, randomUUID } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id` of @node-rs/argon2 (an ambient const enum, which isolated modules cannot read). */
const ARGON2ID = 2;

/** Hashes a password with argon2id (docs/security.md). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

// Verified against when the e-mail is unknown, so both failures take the same time (no enumeration).
let dummyHash: Promise<string> | undefined;

/**
 * Checks `password` against `passwordHash`; with no hash (an unknown e-mail) checks it against a
 * dummy hash, so a wrong e-mail and a wrong password take the same time (no enumeration).
 * @returns true only for a stored hash that matches
 */
export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  dummyHash ??= hashPassword(randomUUID());
  const ok = await verify(passwordHash ?? (await dummyHash), password).catch(() => false);
  return passwordHash !== undefined && ok;
}

/** A random password satisfying the spec §5 rule: 24 base64url characters plus a letter and a digit. */
export function generatePassword(): string {
  return `${randomBytes(18).toString('base64url')}a7`;
}
