import type { ChangeFeed, DatabaseHandle } from '@cordon/db';
import type { Role } from '@cordon/shared';

/**
 * What every core service needs (no globals: docs/architecture.md "Layers"): the database, the change
 * feed the resolver follows, and the clock. The API, the worker and the CLI each build one.
 */
export interface CoreDeps {
  readonly handle: DatabaseHandle;
  readonly changes: ChangeFeed;
  /** Clock, epoch ms. */
  readonly now: () => number;
}

/**
 * Who asks for a change or a read (docs/architecture.md "Tenancy"). An API caller carries its
 * token's admin, role and tenant ids and its client address; an operator's `cordon` command is the
 * `operator` caller (role system, no admin row). `mspId` is set for role 3 (and role 4), `customerId`
 * for role 4.
 */
export interface Caller {
  readonly kind: 'admin' | 'operator';
  /** The admin's id; null for the operator. */
  readonly adminId: number | null;
  /** The admin's e-mail at the time (kept in the audit row: the trail outlives the login); null for the operator. */
  readonly email: string | null;
  readonly role: Role;
  readonly mspId: number | null;
  readonly customerId: number | null;
  /** The client address as the API saw it (after trusted-proxy handling); null off the API. */
  readonly ip: string | null;
}

/** The caller of `cordon` commands run by the operator on the server (role system). */
export const OPERATOR: Caller = {
  kind: 'operator',
  adminId: null,
  email: null,
  role: 1,
  mspId: null,
  customerId: null,
  ip: null,
};
