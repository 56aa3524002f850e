/**
 * Console admins (docs/architecture.md "Layers"): the one writer of the `admins` table — first-run
 * bootstrap, `cordon create-admin`, the primary admin of a new MSP or customer — plus password
 * hashing and the lookups login and token checks need.
 */
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
