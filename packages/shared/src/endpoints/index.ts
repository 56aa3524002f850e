import { adminEndpoints } from './admins.ts';
import { apiTokenEndpoints } from './api-tokens.ts';
import { auditEndpoints } from './audit.ts';
import { authEndpoints } from './auth.ts';
import { batchEndpoints } from './batch.ts';
import { blockPageEndpoints } from './blockpage.ts';
import { certificateEndpoints } from './certificates.ts';
import { cloudKeyEndpoints } from './cloudkeys.ts';
import { customerEndpoints } from './customers.ts';
import type { EndpointDescriptor } from './define.ts';
import { deviceExceptionEndpoints } from './device-exceptions.ts';
import { deviceEndpoints } from './devices.ts';
import { domainEndpoints } from './domains.ts';
import { effectivePolicyEndpoints } from './effective-policy.ts';
import { feedEndpoints } from './feeds.ts';
import { groupEndpoints, internalUserEndpoints } from './groups.ts';
import { historyEndpoints } from './history.ts';
import { locationEndpoints } from './locations.ts';
import { logStreamEndpoints } from './log-streams.ts';
import { mailEndpoints } from './mail.ts';
import { mspEndpoints } from './msps.ts';
import { notificationEndpoints } from './notifications.ts';
import { phoneEndpoints } from './phones.ts';
import { policyEndpoints } from './policies.ts';
import { policyPreviewEndpoints } from './policy-preview.ts';
import { powerBiEndpoints } from './powerbi.ts';
import { reportEndpoints } from './reports.ts';
import { staticRouteEndpoints } from './static-routes.ts';
import { statsEndpoints } from './stats.ts';
import { toolEndpoints } from './tools.ts';
import { uiEndpoints } from './ui.ts';
import { webhookEndpoints } from './webhooks.ts';

export * from './certificates.ts';
export * from './define.ts';
export * from './phones.ts';
export * from './powerbi.ts';
// Each resource's descriptors alone (`mspEndpoints.list` is `Endpoints.msps.list`): the console
// imports these, since `Endpoints` pulls every resource's schemas and the domain/IP parsers into
// whichever chunk imports it (bench/README.md "Console first load").
export {
  adminEndpoints,
  apiTokenEndpoints,
  auditEndpoints,
  authEndpoints,
  batchEndpoints,
  blockPageEndpoints,
  cloudKeyEndpoints,
  customerEndpoints,
  deviceEndpoints,
  deviceExceptionEndpoints,
  domainEndpoints,
  effectivePolicyEndpoints,
  feedEndpoints,
  groupEndpoints,
  historyEndpoints,
  internalUserEndpoints,
  locationEndpoints,
  logStreamEndpoints,
  mailEndpoints,
  mspEndpoints,
  notificationEndpoints,
  policyEndpoints,
  policyPreviewEndpoints,
  reportEndpoints,
  staticRouteEndpoints,
  statsEndpoints,
  toolEndpoints,
  uiEndpoints,
  webhookEndpoints,
};

/**
 * Every `/restapi` endpoint, by resource then name (docs/api.md). Adding an endpoint here makes the
 * isolation test fail to compile until it has a case, and the OpenAPI check fail until regenerated.
 */
export const Endpoints = {
  auth: authEndpoints,
  apitokens: apiTokenEndpoints,
  msps: mspEndpoints,
  customers: customerEndpoints,
  policies: policyEndpoints,
  policypreview: policyPreviewEndpoints,
  locations: locationEndpoints,
  devices: deviceEndpoints,
  deviceexceptions: deviceExceptionEndpoints,
  effectivepolicy: effectivePolicyEndpoints,
  groups: groupEndpoints,
  internalusers: internalUserEndpoints,
  domains: domainEndpoints,
  stats: statsEndpoints,
  history: historyEndpoints,
  reports: reportEndpoints,
  powerbi: powerBiEndpoints,
  batch: batchEndpoints,
  cloudkeys: cloudKeyEndpoints,
  staticroutes: staticRouteEndpoints,
  certificates: certificateEndpoints,
  blockpage: blockPageEndpoints,
  mail: mailEndpoints,
  ui: uiEndpoints,
  tools: toolEndpoints,
  admins: adminEndpoints,
  audit: auditEndpoints,
  feeds: feedEndpoints,
  notifications: notificationEndpoints,
  phones: phoneEndpoints,
  webhooks: webhookEndpoints,
  logstreams: logStreamEndpoints,
} as const;

type EndpointTree = typeof Endpoints;
/** `resource.name` of every endpoint, e.g. `policies.update`. */
export type EndpointKey = {
  [R in keyof EndpointTree]: `${R & string}.${keyof EndpointTree[R] & string}`;
}[keyof EndpointTree];

/** Every endpoint with its key, in declaration order (registration order within a resource matters). */
export function listEndpoints(): Array<{ key: EndpointKey; endpoint: EndpointDescriptor }> {
  const out: Array<{ key: EndpointKey; endpoint: EndpointDescriptor }> = [];
  for (const [resource, group] of Object.entries(Endpoints)) {
    for (const [name, endpoint] of Object.entries(group as Record<string, EndpointDescriptor>)) {
      out.push({ key: `${resource}.${name}` as EndpointKey, endpoint });
    }
  }
  return out;
}

/** A resource of {@link Endpoints}: `msps`, `policies`… */
export type EndpointResource = keyof EndpointTree;

/** The keys of `R`'s endpoints that need a token (all but public ones such as login). */
export type GuardedEndpointKey<R extends EndpointResource> = {
  [N in keyof EndpointTree[R]]: EndpointTree[R][N] extends { readonly access: { readonly public: true } }
    ? never
    : `${R & string}.${N & string}`;
}[keyof EndpointTree[R]];

/** The endpoint of a key: `endpointByKey('policies.update')`. @throws Error for an unknown key */
export function endpointByKey(key: EndpointKey): EndpointDescriptor {
  const [resource, name] = key.split('.') as [EndpointResource, string];
  const endpoint = (Endpoints[resource] as Record<string, EndpointDescriptor> | undefined)?.[name];
  if (!endpoint) throw new Error(`Unknown endpoint ${key}`);
  return endpoint;
}
