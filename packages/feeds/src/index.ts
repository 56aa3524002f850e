/** @cordon/feeds — category feed importers (docs/architecture.md "Categories"). */
export * from './entries.ts';
export * from './fetch.ts';
export * from './formats.ts';
export * from './mapping.ts';
export * from './ut1.ts';
