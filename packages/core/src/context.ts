import type { ChangeFeed, DatabaseHandle, ReadPool } from '@cordon/db';
import { SEALED_PREFIX, type SecretBox } from '@cordon/pki/secrets';
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
  /**
   * Seals the secrets stored in the database (SMTP passwords, TOTP secrets) with the deployment's
   * secret kept outside it (docs/security.md "Tokens and secrets at rest"). `cordon serve` always
   * gives one; without it (a bare embedding) such secrets are stored as they are.
   */
  readonly secrets?: SecretBox;
  /**
   * Where heavy reads run (the history search): off the request loop and within a time bound
   * (`createReadPool` of @cordon/db; docs/decisions.md "Heavy reads"). The API builds one; without
   * it they run on the handle's own connection, one at a time.
   */
  readonly readPool?: ReadPool;
}

/**
 * The stored form of a secret: sealed when `deps.secrets` is set; '' stays '' (nothing to hide).
 */
export function sealStored(deps: Pick<CoreDeps, 'secrets'>, text: string): string {
  return text === '' || !deps.secrets ? text : deps.secrets.seal(text);
}

/**
 * A stored secret in clear: opened when sealed, as it is otherwise.
 * @throws Error when it is sealed and `deps.secrets` is missing or holds another secret
 */
export function openStored(deps: Pick<CoreDeps, 'secrets'>, stored: string): string {
  if (!stored.startsWith(SEALED_PREFIX)) return stored;
  if (!deps.secrets) throw new Error('a sealed secret is stored but no secret box was given to open it');
  return deps.secrets.open(stored);
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
  /** The API token the admin called with (docs/api.md "API tokens"); absent for a login session. Named in the audit row. */
  readonly apiToken?: { readonly id: number; readonly name: string } | undefined;
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
