/** Cloud keys (spec-notes §7 "Cloud keys and history"; docs/architecture.md "Block page"): a customer's keys that start block-page bypasses. */
export { createCloudKey, deleteCloudKey, getCloudKey, listCloudKeys, updateCloudKey } from './service.ts';
