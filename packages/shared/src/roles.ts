/**
 * Console roles as carried in the token's `vue_role` claim (spec-notes §4, §6; docs/architecture.md "Tenancy").
 * Role 2 (sales) is not in the spec's token list but is the sales area's role (docs/architecture.md).
 */
export const Role = {
  System: 1,
  Sales: 2,
  Msp: 3,
  Customer: 4,
} as const;

export type Role = (typeof Role)[keyof typeof Role];

/** All roles, in order of breadth. */
export const ALL_ROLES: readonly Role[] = [Role.System, Role.Sales, Role.Msp, Role.Customer];

/** The console area (layout) each role lands in after login (spec-notes §2 redirects). */
export const HOME_PATH_BY_ROLE: Readonly<Record<Role, string>> = {
  [Role.System]: '/system/overview',
  [Role.Sales]: '/sales/msps',
  [Role.Msp]: '/msp/overview',
  [Role.Customer]: '/customer/overview',
};

/** True when `value` is one of the known role numbers. */
export function isRole(value: unknown): value is Role {
  return value === 1 || value === 2 || value === 3 || value === 4;
}
