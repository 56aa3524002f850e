/**
 * Cloud-key rules the block page checks (spec-notes §5 "Cloud keys"), without zod: the resolver imports
 * this module (see resolver-address.ts). The body schemas are in schemas/cloudkey.ts.
 */

/** The spec-notes §5 key rule: letters, numbers, spaces, dots and dashes. */
export const CLOUD_KEY_PATTERN = /^[A-Za-z0-9 .-]+$/;

/** Bounds of a bypass's duration, seconds: one minute to 30 days (docs/api.md "Cloud keys"). */
export const CLOUD_KEY_EXPIRES_AFTER = { min: 60, max: 30 * 24 * 3600, default: 3600 } as const;
