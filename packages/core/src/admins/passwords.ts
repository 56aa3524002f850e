import { randomBytes, randomUUID } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id` of @node-rs/argon2 (an ambient const enum, which isolated modules cannot read). */
const ARGON2ID = 2;

/** argon2id cost parameters: memory in KiB, passes, lanes. */
export interface PasswordHashCost {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/**
 * The argon2id cost of every stored password hash (RFC 9106; docs/security.md): 19 MiB, 2 passes,
 * 1 lane — @node-rs/argon2's defaults, written out so that a library upgrade cannot change them
 * unnoticed (packages/core/test/passwords.test.ts pins them).
 */
export const PASSWORD_HASH_COST: Readonly<PasswordHashCost> = Object.freeze({
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
});

/** The least cost argon2 accepts (8 KiB, 1 pass, 1 lane): what the test suite hashes with. */
export const TEST_PASSWORD_HASH_COST: Readonly<PasswordHashCost> = Object.freeze({
  memoryCost: 8,
  timeCost: 1,
  parallelism: 1,
});

/**
 * The cost {@link hashPassword} uses: {@link TEST_PASSWORD_HASH_COST} only inside a test run
 * (`VITEST` or `NODE_ENV=test` set) that asks for it with `CORDON_TEST_PASSWORD_HASH_COST=low`
 * (vitest.config.ts does; docs/contributing.md "Running the tests"), else {@link PASSWORD_HASH_COST}.
 * A deployment never sets these; the switch alone does nothing outside a test run.
 */
export function passwordHashCost(env: NodeJS.ProcessEnv = process.env): Readonly<PasswordHashCost> {
  const testRun = env.VITEST !== undefined || env.NODE_ENV === 'test';
  return testRun && env.CORDON_TEST_PASSWORD_HASH_COST === 'low' ? TEST_PASSWORD_HASH_COST : PASSWORD_HASH_COST;
}

/** Hashes a password with argon2id at {@link passwordHashCost} (docs/security.md). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID, ...passwordHashCost() });
}

// Verified against when the e-mail is unknown, so both failures take the same time (no enumeration).
let dummyHash: Promise<string> | undefined;

/**
 * Checks `password` against `passwordHash`; with no hash (an unknown e-mail) checks it against a
 * dummy hash, so a wrong e-mail and a wrong password take the same time (no enumeration). The cost
 * is the one stored in the hash (its PHC string), so hashes of any cost verify.
 * @returns true only for a stored hash that matches
 */
export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  dummyHash ??= hashPassword(randomUUID());
  const ok = await verify(passwordHash ?? (await dummyHash), password).catch(() => false);
  return passwordHash !== undefined && ok;
}

/** A random password satisfying the spec-notes §5 rule: 24 base64url characters plus a letter and a digit. */
export function generatePassword(): string {
  return `${randomBytes(18).toString('base64url')}a7`;
}
