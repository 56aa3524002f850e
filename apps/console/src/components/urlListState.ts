import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { ListSort, ListState } from './DataTable.tsx';
import { SEARCH_DEBOUNCE_MS } from './search.ts';

/**
 * A list's page, sort and search kept in the address (issue 29 "state in the URL"): `page`, `sort`,
 * `dir` and `q`, so a reload, a bookmark or the back button shows the same list. Values outside
 * `sortKeys` or not a page number read as the defaults; the address is rewritten in place (no
 * history entry per keystroke). The same {@link ListState} as `useListState`, for the same tables.
 * @param pageSize rows per page (the list query's `limit`)
 */
export function useUrlListState<K extends string>(
  defaultSort: ListSort<K>,
  sortKeys: readonly K[],
  pageSize: number,
): ListState<K> {
  const [params, setParams] = useSearchParams();
  const rawPage = Number(params.get('page'));
  const page = Number.isInteger(rawPage) && rawPage > 0 ? rawPage : 1;
  const rawSort = params.get('sort') as K | null;
  const key = rawSort !== null && sortKeys.includes(rawSort) ? rawSort : defaultSort.key;
  const rawDir = params.get('dir');
  const dir = rawDir === 'asc' || rawDir === 'desc' ? rawDir : defaultSort.dir;
  const urlSearch = params.get('q') ?? '';
  const [search, setSearchText] = useState(urlSearch);
  const [filter] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);

  // From the address as it is now: a navigation renders in a transition, so a second click can come
  // before this render's `params` have caught up with the first.
  const current = () => new URLSearchParams(window.location.search);
  const update = (changes: Record<string, string | null>) =>
    setParams(
      () => {
        const next = current();
        for (const [k, v] of Object.entries(changes)) {
          if (v === null || v === '') next.delete(k);
          else next.set(k, v);
        }
        return next;
      },
      { replace: true },
    );

  // The debounced search goes to the address (and back to page 1 when it changed).
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new filter writes the address
  useEffect(() => {
    if (filter !== urlSearch.trim()) update({ q: filter, page: null });
  }, [filter]);

  return {
    page,
    setPage: (p) => update({ page: p > 1 ? String(p) : null }),
    sort: { key, dir },
    onSort: (k) => {
      const now = current();
      const same = (now.get('sort') ?? defaultSort.key) === k;
      const nowDir = now.get('dir') ?? defaultSort.dir;
      update({ sort: k, dir: same && nowDir === 'asc' ? 'desc' : 'asc', page: null });
    },
    search,
    setSearch: (text) => setSearchText(text),
    filter: urlSearch.trim(),
    query: { limit: pageSize, offset: (page - 1) * pageSize, sortkey: key, sortdir: dir, filter: urlSearch.trim() },
    afterDelete: (deleted, onPage) => {
      if (deleted > 0 && deleted >= onPage && page > 1) update({ page: String(page - 1) });
    },
  };
}
