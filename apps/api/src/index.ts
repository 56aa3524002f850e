/** @cordon/api — the Fastify `/restapi` API (spec §7; DESIGN.md §5–6). The CLI uses exactly these. */
export { type AppOptions, buildApp } from './app.ts';
export { ensureSystemAdmin } from './modules/auth/bootstrap.ts';
export { type CreateAdminInput, type CreatedAdmin, createAdmin } from './modules/auth/create-admin.ts';
export { type JwtKey, type JwtKeyRing, jwtKeyRing, loadJwtKeyRing, parseJwtKeys } from './modules/auth/keys.ts';
