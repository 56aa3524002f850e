import { authFeature } from '../features/auth/manifest.ts';
import { blockPageFeature } from '../features/blockpage/manifest.ts';
import { certificatesFeature } from '../features/certificates/manifest.ts';
import { cloudKeysFeature } from '../features/cloudkeys/manifest.ts';
import { customersFeature } from '../features/customers/manifest.ts';
import { domainsFeature } from '../features/domains/manifest.ts';
import { errorsFeature } from '../features/errors/manifest.ts';
import { locationsFeature } from '../features/locations/manifest.ts';
import { mspsFeature } from '../features/msps/manifest.ts';
import { policiesFeature } from '../features/policies/manifest.ts';
import { profileFeature } from '../features/profile/manifest.ts';
import { staticRoutesFeature } from '../features/staticroutes/manifest.ts';
import { statsFeature } from '../features/stats/manifest.ts';
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
  policiesFeature,
  locationsFeature,
  staticRoutesFeature,
  profileFeature,
  cloudKeysFeature,
  domainsFeature,
  certificatesFeature,
  blockPageFeature,
];
