import { HOME_PATH_BY_ROLE, Role } from '@cordon/shared';
import { customerScope, mspScope } from './scope.ts';
import type { SessionState } from './session.ts';

/** The console areas, each with its layout, guard and menu (spec-notes §2), in menu order. */
export const AREAS = ['system', 'sales', 'msp', 'customer', 'profile'] as const;
export type Area = (typeof AREAS)[number];

/**
 * Roles allowed in each area (spec-notes §2, §6; docs/architecture.md "Tenancy"): the system admin sees everything and acts
 * on a selected MSP and customer; sales sees the MSP list; an MSP admin its MSP and its customers.
 */
export const AREA_ROLES: Readonly<Record<Area, readonly Role[]>> = {
  system: [Role.System],
  sales: [Role.System, Role.Sales],
  msp: [Role.System, Role.Msp],
  customer: [Role.System, Role.Msp, Role.Customer],
  profile: [Role.System, Role.Sales, Role.Msp, Role.Customer],
};

/** The guard's verdict for a route: render it, or go elsewhere. */
export type GuardDecision = { kind: 'allow' } | { kind: 'redirect'; to: string };

const redirect = (to: string): GuardDecision => ({ kind: 'redirect', to });

/**
 * Decides whether the session may open a page of `area`: logged out → `/` (login); a role the
 * area does not allow → `/403` (spec-notes §6); an area whose scope is not chosen yet (an MSP for role
 * 1 in the MSP area, a customer for roles 1 and 3 in the customer area) → the page that picks it.
 */
export function guardDecision(area: Area, session: SessionState): GuardDecision {
  const role = session.claims?.vue_role;
  if (role === undefined) return redirect('/');
  if (!AREA_ROLES[area].includes(role)) return redirect('/403');
  if (area === 'msp' && mspScope(session) === null) return redirect(HOME_PATH_BY_ROLE[role]);
  if (area === 'customer' && customerScope(session) === null) {
    if (role === Role.Customer) return redirect('/403');
    return redirect(mspScope(session) === null ? HOME_PATH_BY_ROLE[role] : '/msp/overview');
  }
  return { kind: 'allow' };
}

/** Where `/` leads (spec-notes §2): the login page when logged out, else the role's home. */
export function rootDecision(session: SessionState): { kind: 'login' } | { kind: 'redirect'; to: string } {
  const role = session.claims?.vue_role;
  return role === undefined ? { kind: 'login' } : { kind: 'redirect', to: HOME_PATH_BY_ROLE[role] };
}
