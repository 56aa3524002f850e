/**
 * Console admins (docs/architecture.md "Layers"; docs/security.md "Accounts"): the one writer of the
 * `admins` table — first-run bootstrap, `cordon create-admin`, the primary admin of a new MSP or
 * customer, the Administrators pages (`/admin`, invitations) — plus passwords (hashing, resets,
 * changes), TOTP 2FA with recovery codes, MSP enforcement, the profile, and the lookups login and
 * token checks need.
 */
export {
  adminForBearer,
  adminForToken,
  beginTwoFactor,
  changePassword,
  checkSecondFactor,
  confirmTwoFactor,
  disableTwoFactor,
  getEnforcement,
  getProfile,
  logoutEverywhere,
  type RefusalAction,
  recordLoginEvent,
  recordRefusal,
  recordTokenRefusal,
  regenerateRecoveryCodes,
  registerInvitedAdmin,
  requestPasswordReset,
  resetPassword,
  resetTwoFactor,
  type SecondFactorOutcome,
  selfCaller,
  setEnforcement,
  updateProfile,
  WrongPasswordError,
} from './accounts.ts';
export { LINK_TTL_MS } from './links.ts';
export {
  createInvitedAdmin,
  deleteAdmin,
  getAdmin,
  listAdmins,
  PENDING_PASSWORD,
  resendInvitation,
  toAdmin,
  updateAdmin,
} from './management.ts';
export { generatePassword, hashPassword, verifyPassword } from './passwords.ts';
export { type AdminForToken, findAdminByEmail, findAdminById } from './repository.ts';
export {
  adminById,
  adminEmailConflict,
  type CreateAdminInput,
  type CreatedAdmin,
  checkCredentials,
  createAdmin,
  createPrimaryAdmin,
  ensureSystemAdmin,
  operatorDeps,
  recordLogin,
} from './service.ts';
export { RECOVERY_CODE_COUNT, totpCode } from './twofactor.ts';
