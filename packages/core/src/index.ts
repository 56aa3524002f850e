/**
 * @cordon/core — Cordon's domain services and repositories, one folder per aggregate, with no HTTP
 * types (docs/architecture.md "Layers"). Used by the API, the CLI's commands and the worker.
 * Aggregates are imported through their own `index.ts` only (the boundary test checks it); here
 * each aggregate is a namespace: `msps.createMsp(deps, caller, body)`.
 */
export * as admins from './admins/index.ts';
export * as apitokens from './apitokens/index.ts';
export * as audit from './audit/index.ts';
export * as blockpage from './blockpage/index.ts';
export * as branding from './branding/index.ts';
export * as categories from './categories/index.ts';
export * as certificates from './certificates/index.ts';
export * as cloudkeys from './cloudkeys/index.ts';
export { type Caller, type CoreDeps, OPERATOR, openStored, sealStored } from './context.ts';
export * as customers from './customers/index.ts';
export * as deviceexceptions from './deviceexceptions/index.ts';
export * as devices from './devices/index.ts';
export * as effective from './effective/index.ts';
export * as feeds from './feeds/index.ts';
export * as groups from './groups/index.ts';
export * as images from './images/index.ts';
export * as internalusers from './internalusers/index.ts';
export * as lists from './lists/index.ts';
export * as locations from './locations/index.ts';
export * as logstreams from './logstreams/index.ts';
export * as mail from './mail/index.ts';
export * as msps from './msps/index.ts';
export * from './mutation/index.ts';
export * as notifications from './notifications/index.ts';
export * as paging from './paging/index.ts';
export * as policies from './policies/index.ts';
export * as policypreview from './policypreview/index.ts';
export * as recategorize from './recategorize/index.ts';
export * as reports from './reports/index.ts';
export * as rollups from './rollups/index.ts';
export * as staticroutes from './staticroutes/index.ts';
export * as stats from './stats/index.ts';
export * as tenancy from './tenancy/index.ts';
export * as tools from './tools/index.ts';
export * as webhooks from './webhooks/index.ts';
export * as worker from './worker/index.ts';
