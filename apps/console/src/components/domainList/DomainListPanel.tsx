import { type DomainListKind, shortenDomain } from '@cordon/shared';
import {
  Anchor,
  Badge,
  Button,
  Group,
  Modal,
  Table,
  Tabs,
  Text,
  TextInput,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { useDebouncedValue, useDisclosure } from '@mantine/hooks';
import {
  IconChevronDown,
  IconChevronUp,
  IconDownload,
  IconPlus,
  IconSearch,
  IconSelector,
  IconUpload,
} from '@tabler/icons-react';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ListPagination, pageQuery } from '../ListPagination.tsx';
import { QueryState } from '../QueryState.tsx';
import {
  DeleteSelectedButton,
  RowCheckbox,
  SelectAllCheckbox,
  useMultiDeleteToasts,
  useRowSelection,
} from '../RowSelection.tsx';
import { showSuccessToast } from '../toast.ts';
import {
  type DomainSortKey,
  useCreateDomainEntryMutation,
  useDeleteDomainEntriesMutation,
  useDomainEntriesQuery,
  useExportDomainsMutation,
  useImportDomainsMutation,
} from './api.ts';
import { DomainEntryForm } from './DomainEntryForm.tsx';
import { DomainImportForm } from './DomainImportForm.tsx';
import { DOMAIN_TABS, type DomainListOwner, entryPath, saveTextFile, targetList } from './logic.ts';

const SEARCH_DEBOUNCE_MS = 300;
type Sort = { key: DomainSortKey; dir: 'asc' | 'desc' };

/** A column header that sorts by `sortKey`, announcing the current direction (`aria-sort`). */
function SortableTh(props: {
  sortKey: DomainSortKey;
  sort: Sort;
  onSort: (k: DomainSortKey) => void;
  children: string;
}) {
  const { t } = useTranslation();
  const active = props.sort.key === props.sortKey;
  const Icon = !active ? IconSelector : props.sort.dir === 'asc' ? IconChevronUp : IconChevronDown;
  return (
    <Table.Th aria-sort={active ? (props.sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <UnstyledButton
        onClick={() => props.onSort(props.sortKey)}
        aria-label={t('common.sortBy', { column: props.children })}
      >
        <Group gap={4} wrap="nowrap">
          <Text fw={700} size="sm">
            {props.children}
          </Text>
          <Icon size={14} aria-hidden />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}

/** A yes/no cell. */
function Flag({ on }: { on: boolean }) {
  const { t } = useTranslation();
  return (
    <Text size="sm" c={on ? undefined : 'dimmed'}>
      {on ? t('common.yes') : t('common.no')}
    </Text>
  );
}

/** A domain shortened as spec §9 says (25+ characters, more than two labels), the full name on hover and for screen readers. */
function DomainName({ domain, to }: { domain: string; to: string }): ReactNode {
  const short = shortenDomain(domain);
  const link = (
    <Anchor component={Link} to={to} fw={500} aria-label={short === domain ? undefined : domain}>
      {short}
    </Anchor>
  );
  return short === domain ? link : <Tooltip label={domain}>{link}</Tooltip>;
}

/**
 * A policy's or a global allow and block lists (spec §7 Domains; §2 "Allowed & Blocked Domains"):
 * tabs Allowed / Blocked / All, a table with paging, sort and search (spec §9; long domains
 * shortened), "Add domain" (spec §5 message for URLs), multi-delete as one `/batch` after a
 * confirmation, CSV import (multipart `csv`, optionally replacing the list after a confirmation)
 * and CSV export named as the server names it (DD-MM-YYYY). Each domain links to its entry page,
 * where it is edited or deleted. `area` is the console area the view is in (entry links).
 */
export function DomainListPanel({ owner, area }: { owner: DomainListOwner; area: 'customer' | 'msp' | 'system' }) {
  const { t } = useTranslation();
  const [kind, setKind] = useState<DomainListKind>('allow');
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<Sort>({ key: 'name', dir: 'asc' });
  const [search, setSearch] = useState('');
  const [filter] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const [adding, { open: openAdd, close: closeAdd }] = useDisclosure(false);
  const [importing, { open: openImport, close: closeImport }] = useDisclosure(false);
  const entries = useDomainEntriesQuery(owner, kind, {
    ...pageQuery(page),
    sortkey: sort.key,
    sortdir: sort.dir,
    filter,
  });
  const rows = entries.data?.data ?? [];
  const selection = useRowSelection(rows.map((e) => e.id));
  const create = useCreateDomainEntryMutation(owner);
  const remove = useDeleteDomainEntriesMutation(owner);
  const importer = useImportDomainsMutation(owner);
  const exporter = useExportDomainsMutation(owner);
  const toastResult = useMultiDeleteToasts();

  const onSort = (key: DomainSortKey) => {
    setSort((s) => ({ key, dir: s.key === key && s.dir === 'asc' ? 'desc' : 'asc' }));
    setPage(1);
  };
  const onTab = (value: string | null) => {
    const next = DOMAIN_TABS.find((tab) => tab.kind === value);
    if (!next) return;
    setKind(next.kind);
    setPage(1);
    selection.clear();
  };
  const onDelete = async () => {
    const names = new Map(rows.map((e) => [String(e.id), e.domain]));
    const outcome = await remove.run(selection.selected);
    toastResult({
      deleted: outcome.succeeded.length,
      failed: outcome.failed.map((f) => ({ name: names.get(f.id) ?? f.id, error: f.error })),
    });
    selection.clear();
    if (outcome.succeeded.length === rows.length && page > 1) setPage(page - 1);
  };
  const onExport = () =>
    exporter.mutate(kind, {
      onSuccess: ({ text, fileName }) => {
        saveTextFile(text, fileName);
        showSuccessToast(t('domainList.exported', { file: fileName }));
      },
    });

  return (
    <>
      <Tabs value={kind} onChange={onTab} keepMounted={false}>
        <Tabs.List mb="md">
          {DOMAIN_TABS.map((tab) => (
            <Tabs.Tab key={tab.kind} value={tab.kind}>
              {t(tab.labelKey)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <Group justify="space-between" mb="md" wrap="wrap" gap="sm">
        <TextInput
          aria-label={t('domainList.search')}
          placeholder={t('domainList.search')}
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
          w={{ base: '100%', sm: 280 }}
        />
        <Group gap="xs" wrap="wrap">
          <Button leftSection={<IconPlus size={16} />} onClick={openAdd}>
            {t('domainList.add')}
          </Button>
          <Button variant="default" leftSection={<IconUpload size={16} />} onClick={openImport}>
            {t('domainList.import')}
          </Button>
          <Button
            variant="default"
            leftSection={<IconDownload size={16} />}
            onClick={onExport}
            loading={exporter.isPending}
          >
            {t('domainList.export')}
          </Button>
          <DeleteSelectedButton count={selection.selected.length} loading={remove.isPending} onConfirm={onDelete} />
        </Group>
      </Group>
      <QueryState query={entries}>
        {(list) =>
          list.data.length === 0 ? (
            <Text c="dimmed" data-testid="domains-empty">
              {filter ? t('domainList.noMatch') : t('domainList.empty')}
            </Text>
          ) : (
            <>
              <Table.ScrollContainer minWidth={640}>
                <Table striped highlightOnHover data-testid="domains-table">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th w={40}>
                        <SelectAllCheckbox selection={selection} />
                      </Table.Th>
                      <SortableTh sortKey="name" sort={sort} onSort={onSort}>
                        {t('domainList.domain')}
                      </SortableTh>
                      {kind === 'all' ? (
                        <SortableTh sortKey="object" sort={sort} onSort={onSort}>
                          {t('domainList.list')}
                        </SortableTh>
                      ) : null}
                      <Table.Th>{t('domainList.subdomains')}</Table.Th>
                      <Table.Th>{t('domainList.logRequests')}</Table.Th>
                      <Table.Th>{t('domainList.comment')}</Table.Th>
                      <SortableTh sortKey="updated_at" sort={sort} onSort={onSort}>
                        {t('domainList.updated')}
                      </SortableTh>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {list.data.map((e) => (
                      <Table.Tr key={e.id}>
                        <Table.Td>
                          <RowCheckbox selection={selection} id={e.id} name={e.domain} />
                        </Table.Td>
                        <Table.Td>
                          <DomainName domain={e.domain} to={entryPath(owner, e.id, area)} />
                        </Table.Td>
                        {kind === 'all' ? (
                          <Table.Td>
                            <Badge variant="light" color={e.object === 'allow' ? 'teal' : 'red'}>
                              {e.object === 'allow' ? t('domainList.allowed') : t('domainList.blocked')}
                            </Badge>
                          </Table.Td>
                        ) : null}
                        <Table.Td>
                          <Flag on={e.include_subdomains} />
                        </Table.Td>
                        <Table.Td>
                          <Flag on={e.log_requests} />
                        </Table.Td>
                        <Table.Td maw={240}>
                          <Text size="sm" truncate="end" title={e.comment}>
                            {e.comment}
                          </Text>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm" c="dimmed">
                            {new Date(e.updated_at).toLocaleDateString()}
                          </Text>
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
              <ListPagination total={list.total} page={page} onChange={setPage} />
            </>
          )
        }
      </QueryState>
      <Modal opened={adding} onClose={closeAdd} title={t('domainList.add')} size="lg">
        <DomainEntryForm
          entry={null}
          list={targetList(kind)}
          pending={create.isPending}
          onCancel={closeAdd}
          submit={(list, body) =>
            create.mutateAsync({ list, body }).then(() => {
              showSuccessToast(t('domainList.added', { domain: body.domain }));
              closeAdd();
            })
          }
        />
      </Modal>
      <Modal opened={importing} onClose={closeImport} title={t('domainList.importTitle')} size="lg">
        <DomainImportForm
          list={targetList(kind)}
          pending={importer.isPending}
          run={(input) => importer.mutateAsync(input)}
          onCancel={closeImport}
          onDone={(r) => {
            showSuccessToast(
              t('domainList.imported', { imported: r.imported, skipped: r.skipped, removed: r.removed }),
            );
            closeImport();
          }}
        />
      </Modal>
    </>
  );
}
