import type { AnyApiModule } from './http/module.ts';
import { adminModule } from './modules/admins/index.ts';
import { apiTokenModule } from './modules/apitokens/index.ts';
import { auditModule } from './modules/audit/index.ts';
import { authModule } from './modules/auth/index.ts';
import { batchModule } from './modules/batch/index.ts';
import { blockPageModule } from './modules/blockpage/index.ts';
import { certificateModule } from './modules/certificates/index.ts';
import { cloudKeyModule } from './modules/cloudkeys/index.ts';
import { customerModule } from './modules/customers/index.ts';
import { deviceExceptionModule } from './modules/deviceexceptions/index.ts';
import { deviceModule } from './modules/devices/index.ts';
import { domainModule } from './modules/domains/index.ts';
import { effectivePolicyModule } from './modules/effectivepolicy/index.ts';
import { feedModule } from './modules/feeds/index.ts';
import { groupModule } from './modules/groups/index.ts';
import { historyModule } from './modules/history/index.ts';
import { internalUserModule } from './modules/internalusers/index.ts';
import { locationModule } from './modules/locations/index.ts';
import { logStreamModule } from './modules/logstreams/index.ts';
import { mailModule } from './modules/mail/index.ts';
import { mspModule } from './modules/msps/index.ts';
import { notificationModule } from './modules/notifications/index.ts';
import { phoneModule } from './modules/phones/index.ts';
import { policyModule } from './modules/policies/index.ts';
import { policyPreviewModule } from './modules/policypreview/index.ts';
import { powerBiModule } from './modules/powerbi/index.ts';
import { reportModule } from './modules/reports/index.ts';
import { staticRouteModule } from './modules/staticroutes/index.ts';
import { statsModule } from './modules/stats/index.ts';
import { toolModule } from './modules/tools/index.ts';
import { uiModule } from './modules/ui/index.ts';
import { webhookModule } from './modules/webhooks/index.ts';

/**
 * Every API module, in registration order (docs/contributing.md "Add a route"). `buildApp` registers
 * each module's public routes in the public context and its other routes in the authenticated,
 * tenant-scoped one, in this order; the isolation test iterates the same array.
 */
export const API_MODULES: readonly AnyApiModule[] = [
  authModule,
  apiTokenModule,
  mspModule,
  customerModule,
  policyModule,
  policyPreviewModule,
  domainModule,
  notificationModule,
  locationModule,
  deviceModule,
  phoneModule,
  deviceExceptionModule,
  groupModule,
  internalUserModule,
  effectivePolicyModule,
  cloudKeyModule,
  statsModule,
  historyModule,
  reportModule,
  powerBiModule,
  staticRouteModule,
  certificateModule,
  blockPageModule,
  mailModule,
  adminModule,
  auditModule,
  uiModule,
  toolModule,
  feedModule,
  batchModule,
  webhookModule,
  logStreamModule,
];
