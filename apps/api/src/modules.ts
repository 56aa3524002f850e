import type { AnyApiModule } from './http/module.ts';
import { authModule } from './modules/auth/index.ts';
import { batchModule } from './modules/batch/index.ts';
import { blockPageModule } from './modules/blockpage/index.ts';
import { certificateModule } from './modules/certificates/index.ts';
import { cloudKeyModule } from './modules/cloudkeys/index.ts';
import { customerModule } from './modules/customers/index.ts';
import { domainModule } from './modules/domains/index.ts';
import { locationModule } from './modules/locations/index.ts';
import { mspModule } from './modules/msps/index.ts';
import { policyModule } from './modules/policies/index.ts';
import { staticRouteModule } from './modules/staticroutes/index.ts';
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
  domainModule,
  locationModule,
  cloudKeyModule,
  statsModule,
  staticRouteModule,
  certificateModule,
  blockPageModule,
  batchModule,
];
