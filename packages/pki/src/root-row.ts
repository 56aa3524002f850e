/**
 * The root CA's row without the X.509 code: a process that only needs to know the root exists (a
 * resolver-only `cordon serve`) never evaluates `@peculiar/x509` (bench/README.md "Resolver memory",
 * round 7). ca.ts creates and loads the root.
 */
import type { DatabaseHandle } from '@cordon/db';
import { unseal } from './seal.ts';

/** The root CA's row (id 1), or undefined before the first start created it. */
export async function readRootCaRow(handle: DatabaseHandle) {
  return handle.db.selectFrom('root_ca').selectAll().where('id', '=', 1).executeTakeFirst();
}

/**
 * Whether the deployment's root CA exists; when it does, its key must unseal with `secret` (the
 * same check `ensureRootCa` makes before signing: docs/decisions.md "Root CA").
 * @returns false before the first start created the root
 * @throws Error when the sealed key does not open with `secret` (a wrong or changed CA secret)
 */
export async function rootCaPresent(handle: DatabaseHandle, secret: Buffer): Promise<boolean> {
  const row = await readRootCaRow(handle);
  if (row === undefined) return false;
  unseal(row.key_sealed, secret);
  return true;
}
