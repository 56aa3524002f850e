import type { AnyApiModule } from './http/module.ts';
import { authModule } from './modules/auth/index.ts';
import { customerModule } from './modules/customers/index.ts';
import { locationModule } from './modules/locations/index.ts';
import { mspModule } from './modules/msps/index.ts';
import { policyModule } from './modules/policies/index.ts';
import { statsModule } from './modules/stats/index.ts';

/**
 * Every API module, in registration order (docs/contributing.md "Add a route"). `buildApp` registers
 * each module's public routes in the public context and its other routes in the authenticated,
 * tenant-scoped one, in this order; the isolation test iterates the same array.
 */
export const API_MODULES: readonly AnyApiModule[] = [
  authModule,
  mspModule,
  customerModule,
  policyModule,
  locationModule,
  statsModule,
];
