/** List paging of repositories: `sortkey` whitelists, `filter` text, one page and its total (docs/api.md "Conventions"). */
export { containsAnyText, containsPattern, containsText, type ListSort, listPage, sortColumn } from './paging.ts';
