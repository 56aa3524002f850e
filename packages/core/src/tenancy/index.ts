/** Tenant visibility (docs/architecture.md "Tenancy"): scopes, SQL predicates and visibility checks. */
export {
  type CustomerIdColumn,
  type CustomerOwnedTable,
  customerIdsInScope,
  customerInScope,
  defaultPolicyOf,
  EVERYTHING,
  mspInScope,
  ownedInScope,
  scopeOf,
  type TenantScope,
} from './scope.ts';
export { customerTenant, customerVisible, mspVisible } from './visibility.ts';
