/** @cordon/feeds — category feed importers (DESIGN.md §7). */
export * from './entries.ts';
export * from './mapping.ts';
export * from './ut1.ts';
