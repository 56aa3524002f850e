import { Role } from '@cordon/shared';
import type { SessionState } from './session.ts';

/**
 * The MSP the console acts on (spec-notes §4): the selected MSP for a system admin (role 1), the token's
 * `msp_id` for an MSP admin (role 3); null otherwise.
 */
export function mspScope(session: SessionState): number | null {
  const role = session.claims?.vue_role;
  if (role === Role.System) return session.selectedMsp;
  if (role === Role.Msp) return session.claims?.msp_id ?? null;
  return null;
}

/**
 * The customer the console acts on: the selected customer for roles 1 and 3, the token's
 * `user_id` (the customer id of a role-4 login) for a customer admin; null otherwise.
 */
export function customerScope(session: SessionState): number | null {
  const role = session.claims?.vue_role;
  if (role === Role.System || role === Role.Msp) return session.selectedCustomer;
  if (role === Role.Customer) return session.claims?.user_id ?? null;
  return null;
}
