import { adminsFeature } from '../features/admins/manifest.ts';
import { auditFeature } from '../features/audit/manifest.ts';
import { authFeature } from '../features/auth/manifest.ts';
import { blockPageFeature } from '../features/blockpage/manifest.ts';
import { brandingFeature } from '../features/branding/manifest.ts';
import { categoriesFeature } from '../features/categories/manifest.ts';
import { certificatesFeature } from '../features/certificates/manifest.ts';
import { cloudKeysFeature } from '../features/cloudkeys/manifest.ts';
import { customersFeature } from '../features/customers/manifest.ts';
import { deviceExceptionsFeature } from '../features/deviceexceptions/manifest.ts';
import { devicesFeature } from '../features/devices/manifest.ts';
import { domainsFeature } from '../features/domains/manifest.ts';
import { errorsFeature } from '../features/errors/manifest.ts';
import { feedsFeature } from '../features/feeds/manifest.ts';
import { groupsFeature } from '../features/groups/manifest.ts';
import { historyFeature } from '../features/history/manifest.ts';
import { internalUsersFeature } from '../features/internalusers/manifest.ts';
import { locationsFeature } from '../features/locations/manifest.ts';
import { logStreamsFeature } from '../features/logstreams/manifest.ts';
import { mailSettingsFeature } from '../features/mailsettings/manifest.ts';
import { mspsFeature } from '../features/msps/manifest.ts';
import { policiesFeature } from '../features/policies/manifest.ts';
import { profileFeature } from '../features/profile/manifest.ts';
import { reportsFeature } from '../features/reports/manifest.ts';
import { staticRoutesFeature } from '../features/staticroutes/manifest.ts';
import { statsFeature } from '../features/stats/manifest.ts';
import { toolsFeature } from '../features/tools/manifest.ts';
import { webhooksFeature } from '../features/webhooks/manifest.ts';
import type { FeatureManifest } from '../platform/manifest.ts';

/**
 * Every feature of the console, in one explicit order (docs/contributing.md "Add a console page"):
 * the router, the menus and the merged strings are built from this array and nothing else. A new
 * feature is one line here; a new page of an existing feature is a route in its manifest.
 */
export const FEATURES: readonly FeatureManifest[] = [
  authFeature,
  errorsFeature,
  mspsFeature,
  customersFeature,
  statsFeature,
  historyFeature,
  reportsFeature,
  policiesFeature,
  locationsFeature,
  devicesFeature,
  groupsFeature,
  internalUsersFeature,
  deviceExceptionsFeature,
  staticRoutesFeature,
  profileFeature,
  adminsFeature,
  mailSettingsFeature,
  auditFeature,
  cloudKeysFeature,
  domainsFeature,
  certificatesFeature,
  blockPageFeature,
  feedsFeature,
  brandingFeature,
  toolsFeature,
  webhooksFeature,
  logStreamsFeature,
  categoriesFeature,
];
