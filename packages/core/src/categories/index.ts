/** The category database (docs/architecture.md "Layers"): taxonomy rows with their levels, feed imports. */
export { type CategoryRow, categoryRows } from './repository.ts';
export { importUt1Feed } from './service.ts';
