import { Group, Table, type TableTdProps, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconChevronDown, IconChevronUp, IconSearch, IconSelector } from '@tabler/icons-react';
import type { UseQueryResult } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DeferredSelect } from './Deferred.tsx';
import { ListPagination, pageQuery } from './ListPagination.tsx';
import { QueryState } from './QueryState.tsx';
import { RowCheckbox, type RowSelection, SelectAllCheckbox } from './RowSelection.tsx';
import { SEARCH_DEBOUNCE_MS } from './search.ts';

export { SEARCH_DEBOUNCE_MS };

/** A list's sort: one of the API's sort keys and its direction (spec-notes §9 `sortkey`/`sortdir`). */
export interface ListSort<K extends string> {
  readonly key: K;
  readonly dir: 'asc' | 'desc';
}

/** Everything a paged, sorted, searchable list page keeps (spec-notes §9 paging, sort and search). */
export interface ListState<K extends string> {
  /** The 1-based page on screen. */
  readonly page: number;
  readonly setPage: (page: number) => void;
  readonly sort: ListSort<K>;
  /** Sorts by `key`: ascending first, a second click on the same column flips the direction; back to page 1. */
  readonly onSort: (key: K) => void;
  /** The search box's text as typed. */
  readonly search: string;
  /** Sets the search text and goes back to page 1. */
  readonly setSearch: (text: string) => void;
  /** The trimmed search text after {@link SEARCH_DEBOUNCE_MS} without typing: what is sent as `filter`. */
  readonly filter: string;
  /** The list query's `limit`, `offset`, `sortkey`, `sortdir` and `filter` (spec-notes §9: offset = size × page − size). */
  readonly query: { limit: number; offset: number; sortkey: K; sortdir: 'asc' | 'desc'; filter: string };
  /**
   * After a delete of `deleted` rows out of the `onPage` rows on screen: a page emptied by the
   * delete shows the one before it.
   */
  readonly afterDelete: (deleted: number, onPage: number) => void;
}

/** The state of a server-paged list: page, sort (default `defaultSort`) and a debounced search text. */
export function useListState<K extends string>(defaultSort: ListSort<K>): ListState<K> {
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<ListSort<K>>(defaultSort);
  const [search, setSearchText] = useState('');
  const [filter] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  return {
    page,
    setPage,
    sort,
    onSort: (key) => {
      setSort((s) => ({ key, dir: s.key === key && s.dir === 'asc' ? 'desc' : 'asc' }));
      setPage(1);
    },
    search,
    setSearch: (text) => {
      setSearchText(text);
      setPage(1);
    },
    filter,
    query: { ...pageQuery(page), sortkey: sort.key, sortdir: sort.dir, filter },
    afterDelete: (deleted, onPage) => {
      if (deleted > 0 && deleted >= onPage && page > 1) setPage(page - 1);
    },
  };
}

/** A list's search box: labelled, full width on a phone, 280 px from `sm` up; typing goes back to page 1. */
export function ListSearch<K extends string>({
  list,
  label,
  wide,
}: {
  list: ListState<K>;
  label?: string;
  /** A wider box from the `sm` breakpoint on, for a label that names several fields. */
  wide?: boolean;
}) {
  const { t } = useTranslation();
  const text = label ?? t('common.search');
  return (
    <TextInput
      aria-label={text}
      placeholder={text}
      leftSection={<IconSearch size={16} aria-hidden />}
      value={list.search}
      onChange={(e) => list.setSearch(e.currentTarget.value)}
      w={{ base: '100%', sm: wide ? 400 : 280 }}
    />
  );
}

/**
 * The bar above a list: the search box on the left, `actions` (buttons, "Delete selected") on the
 * right; wraps on a phone.
 */
export function ListToolbar<K extends string>(props: {
  list: ListState<K>;
  searchLabel?: string;
  actions?: ReactNode;
}) {
  return (
    <Group justify="space-between" mb="md" wrap="wrap" gap="sm">
      <ListSearch list={props.list} {...(props.searchLabel === undefined ? {} : { label: props.searchLabel })} />
      {props.actions ? (
        <Group gap="xs" wrap="wrap">
          {props.actions}
        </Group>
      ) : null}
    </Group>
  );
}

/**
 * A filter of a list by one related record (a policy, a location, a group): a clearable select whose
 * empty value reads `anyLabel`; choosing goes back to page 1 (the current page may not exist in the
 * filtered list).
 * @param options the records to filter by, `{ id, name }`; an empty array while they load
 */
export function ListFilterSelect<K extends string>(props: {
  list: ListState<K>;
  label: string;
  anyLabel: string;
  options: readonly { id: number | string; name: string }[];
  value: string | null;
  onChange: (value: string | null) => void;
}) {
  return (
    <DeferredSelect
      aria-label={props.label}
      placeholder={props.anyLabel}
      clearable
      w={{ base: '100%', xs: 190 }}
      data={props.options.map((o) => ({ value: String(o.id), label: o.name }))}
      value={props.value}
      onChange={(v) => {
        props.onChange(v);
        props.list.setPage(1);
      }}
    />
  );
}

/** A column header that sorts by `sortKey`: a button announcing the current direction (`aria-sort`). */
export function SortableTh<K extends string>(props: {
  sortKey: K;
  sort: ListSort<K>;
  onSort: (key: K) => void;
  label: string;
  w?: number | string;
}) {
  const { t } = useTranslation();
  const active = props.sort.key === props.sortKey;
  const Icon = !active ? IconSelector : props.sort.dir === 'asc' ? IconChevronUp : IconChevronDown;
  return (
    <Table.Th
      aria-sort={active ? (props.sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
      {...(props.w === undefined ? {} : { w: props.w })}
    >
      <UnstyledButton
        onClick={() => props.onSort(props.sortKey)}
        aria-label={t('common.sortBy', { column: props.label })}
      >
        <Group gap={4} wrap="nowrap">
          <Text fw={700} size="sm">
            {props.label}
          </Text>
          <Icon size={14} aria-hidden />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}

/** One column of a {@link DataTable}. */
export interface DataColumn<T, K extends string = string> {
  /** A stable key for React. */
  readonly key: string;
  /** The header text (also the sort button's accessible name). */
  readonly header: string;
  /** When set, the header sorts the list by this API sort key. */
  readonly sortKey?: K;
  /** The cell's content. */
  readonly render: (row: T) => ReactNode;
  /** The column's width (CSS or px). */
  readonly w?: number | string;
  /** Extra `Table.Td` props for the cell (e.g. `{ ff: 'monospace' }`). */
  readonly td?: TableTdProps;
}

/** The multi-select of a {@link DataTable}: the selection state and each row's id and accessible name. */
export interface DataTableSelection<T> {
  readonly selection: RowSelection;
  readonly rowId: (row: T) => number;
  readonly rowName: (row: T) => string;
  /** Whether this row may be selected (default: every row); an unselectable row has no checkbox. */
  readonly selectable?: (row: T) => boolean;
}

/** The page of a list as the API answers it (spec-notes §9: `data` and `total`). */
export interface ListPage<T> {
  readonly data: readonly T[];
  readonly total: number;
}

/**
 * A server-paged list's table: sortable headers ({@link SortableTh}), an optional checkbox column
 * (header checkbox selects the rows on the page), horizontal scroll under `minWidth` (phones), the
 * empty text when the page has no row (`emptyText`, default "Nothing here yet."; "Nothing matches your
 * search." while a search is active), and paging with
 * the total under the table. `rowKey` keys the rows.
 */
export function DataTable<T, K extends string>(props: {
  rows: readonly T[];
  columns: ReadonlyArray<DataColumn<T, K> | null | false>;
  rowKey: (row: T) => string | number;
  list?: ListState<K>;
  total?: number;
  select?: DataTableSelection<T>;
  minWidth?: number;
  testId?: string;
  emptyText?: ReactNode;
  /** Shown instead of `emptyText` when the list's search finds nothing; default "Nothing matches your search." */
  noMatchText?: ReactNode;
  emptyTestId?: string;
}) {
  const { t } = useTranslation();
  const columns = props.columns.filter((c): c is DataColumn<T, K> => Boolean(c));
  const { list, select } = props;
  if (props.rows.length === 0) {
    // A search that finds nothing says so, whatever the list's own empty text.
    const searched = Boolean(list?.filter);
    return (
      <Text c="dimmed" {...(props.emptyTestId ? { 'data-testid': props.emptyTestId } : {})}>
        {searched ? (props.noMatchText ?? t('common.noMatch')) : (props.emptyText ?? t('common.empty'))}
      </Text>
    );
  }
  const isSelectable = (row: T) => select?.selectable?.(row) ?? true;
  return (
    <>
      <Table.ScrollContainer minWidth={props.minWidth ?? 560}>
        <Table striped highlightOnHover {...(props.testId ? { 'data-testid': props.testId } : {})}>
          <Table.Thead>
            <Table.Tr>
              {select ? (
                <Table.Th w={40}>
                  <SelectAllCheckbox selection={select.selection} disabled={!props.rows.some(isSelectable)} />
                </Table.Th>
              ) : null}
              {columns.map((c) =>
                c.sortKey !== undefined && list ? (
                  <SortableTh
                    key={c.key}
                    sortKey={c.sortKey}
                    sort={list.sort}
                    onSort={list.onSort}
                    label={c.header}
                    {...(c.w === undefined ? {} : { w: c.w })}
                  />
                ) : (
                  <Table.Th key={c.key} {...(c.w === undefined ? {} : { w: c.w })}>
                    {c.header}
                  </Table.Th>
                ),
              )}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {props.rows.map((row) => (
              <Table.Tr key={props.rowKey(row)}>
                {select ? (
                  <Table.Td>
                    {isSelectable(row) ? (
                      <RowCheckbox selection={select.selection} id={select.rowId(row)} name={select.rowName(row)} />
                    ) : null}
                  </Table.Td>
                ) : null}
                {columns.map((c) => (
                  <Table.Td key={c.key} {...(c.td ?? {})}>
                    {c.render(row)}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list && props.total !== undefined ? (
        <ListPagination total={props.total} page={list.page} onChange={list.setPage} />
      ) : null}
    </>
  );
}

/**
 * A list query's loading and error states ({@link QueryState}), then its page in a {@link DataTable}
 * with the total and paging.
 */
export function QueryDataTable<T, K extends string>(
  props: { query: UseQueryResult<ListPage<T>> } & Omit<Parameters<typeof DataTable<T, K>>[0], 'rows' | 'total'>,
) {
  const { query, ...table } = props;
  return (
    <QueryState query={query}>{(page) => <DataTable {...table} rows={page.data} total={page.total} />}</QueryState>
  );
}
