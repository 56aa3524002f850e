/**
 * @cordon/core — Cordon's domain services and repositories, one folder per aggregate, with no HTTP
 * types (docs/architecture.md "Layers"). Used by the API, the CLI's commands and the worker.
 * Aggregates are imported through their own `index.ts` only (the boundary test checks it).
 */
export { type Caller, type CoreDeps, OPERATOR } from './context.ts';
export * from './mutation/index.ts';
