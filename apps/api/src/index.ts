import { admins } from '@cordon/core';
import type { DatabaseHandle } from '@cordon/db';

/** @cordon/api — the Fastify `/restapi` API (spec-notes §7; docs/api.md). `cordon serve` uses exactly these. */
export { type AppOptions, buildApp } from './app.ts';
export { type JwtKey, type JwtKeyRing, jwtKeyRing, loadJwtKeyRing, parseJwtKeys } from './modules/auth/index.ts';
export { API_MODULES } from './modules.ts';

/**
 * First run (docs/operations.md): core's `admins.ensureSystemAdmin` on `handle` as the operator.
 * @throws Error when the given e-mail or password breaks the spec-notes §5 rules
 */
export function ensureSystemAdmin(
  handle: DatabaseHandle,
  opts: { email?: string | undefined; password?: string | undefined },
): ReturnType<typeof admins.ensureSystemAdmin> {
  return admins.ensureSystemAdmin(admins.operatorDeps(handle), opts);
}
