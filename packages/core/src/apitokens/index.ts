/**
 * API tokens for automation (issue 26; docs/api.md "API tokens"; docs/security.md "API tokens"): an
 * admin's named secrets (`cdn_…`, stored as SHA-256), read-only or read-write, optionally expiring,
 * that act as their admin with exactly its tenancy; created with a fresh password (and 2FA code).
 */
export {
  API_TOKEN_PREFIX,
  type ApiTokenUse,
  authenticateApiToken,
  createApiToken,
  LAST_USED_INTERVAL_MS,
  listApiTokens,
  looksLikeApiToken,
  revokeApiToken,
} from './service.ts';
