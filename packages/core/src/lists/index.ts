/** Domain lists (spec-notes §7 "Domains"): policies' allow and block lists, and the MSP and system global lists. */
export { formatDomainCsv, parseDomainCsv } from './csv.ts';
export type { EntryFields, ListOwner } from './repository.ts';
export {
  createEntry,
  DEFAULT_LIST_LIMITS,
  deleteEntry,
  exportEntries,
  getEntry,
  importEntries,
  type ListDeps,
  type ListLimits,
  type ListTarget,
  listEntries,
  ownerOf,
  updateEntry,
} from './service.ts';
