import { afterEach, describe, expect, it } from 'vitest';
import {
  hashPassword,
  PASSWORD_HASH_COST,
  passwordHashCost,
  TEST_PASSWORD_HASH_COST,
  verifyPassword,
} from '../src/admins/passwords.ts';

const SWITCH = 'CORDON_TEST_PASSWORD_HASH_COST';

describe('password hash cost', () => {
  const saved = process.env[SWITCH];
  afterEach(() => {
    if (saved === undefined) delete process.env[SWITCH];
    else process.env[SWITCH] = saved;
  });

  it('hashes with argon2id at 19 MiB, 2 passes, 1 lane outside the test switch', async () => {
    expect(PASSWORD_HASH_COST).toEqual({ memoryCost: 19_456, timeCost: 2, parallelism: 1 });
    delete process.env[SWITCH];
    const stored = await hashPassword('Sup3r-secret');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(stored, 'Sup3r-secret')).toBe(true);
    expect(await verifyPassword(stored, 'Sup3r-secreT')).toBe(false);
  });

  it('lowers the cost only in a test run that asks for it', () => {
    expect(passwordHashCost({})).toBe(PASSWORD_HASH_COST);
    expect(passwordHashCost({ [SWITCH]: 'low' })).toBe(PASSWORD_HASH_COST);
    expect(passwordHashCost({ NODE_ENV: 'production', [SWITCH]: 'low' })).toBe(PASSWORD_HASH_COST);
    expect(passwordHashCost({ VITEST: 'true' })).toBe(PASSWORD_HASH_COST);
    expect(passwordHashCost({ VITEST: 'true', [SWITCH]: 'high' })).toBe(PASSWORD_HASH_COST);
    expect(passwordHashCost({ VITEST: 'true', [SWITCH]: 'low' })).toBe(TEST_PASSWORD_HASH_COST);
    expect(passwordHashCost({ NODE_ENV: 'test', [SWITCH]: 'low' })).toBe(TEST_PASSWORD_HASH_COST);
  });

  it('verifies with the cost stored in each hash: a cheap test hash and a production hash side by side', async () => {
    process.env[SWITCH] = 'low';
    const cheap = await hashPassword('Passw0rd!');
    expect(cheap).toMatch(/^\$argon2id\$v=19\$m=8,t=1,p=1\$/);
    delete process.env[SWITCH];
    const production = await hashPassword('Passw0rd!');
    process.env[SWITCH] = 'low';
    expect(await verifyPassword(production, 'Passw0rd!')).toBe(true);
    expect(await verifyPassword(cheap, 'Passw0rd!')).toBe(true);
    expect(await verifyPassword(cheap, 'passw0rd!')).toBe(false);
    expect(await verifyPassword(undefined, 'Passw0rd!')).toBe(false);
  });
});
