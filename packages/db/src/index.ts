/** @cordon/db — Cordon's schema, dialect factory and migrations (docs/decisions.md). */
export * from './address-claims.ts';
export * from './category-stamp.ts';
export * from './changes.ts';
export * from './compiled-template.ts';
export * from './connection.ts';
export * from './dialect-kind.ts';
export * from './migrate.ts';
export * from './multi-row.ts';
export * from './query-log-lock.ts';
export type * from './query-log-row.ts';
export * from './read-pool.ts';
export type * from './schema.ts';
export * from './sqlite-file.ts';
export * from './time.ts';
export * from './unreachable.ts';
