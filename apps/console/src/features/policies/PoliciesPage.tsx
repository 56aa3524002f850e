import { Button, Group, Modal, TextInput } from '@mantine/core';
import { useDebouncedValue, useDisclosure } from '@mantine/hooks';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListPagination, pageQuery } from '../../components/ListPagination.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../../components/RowSelection.tsx';
import { useCustomerId } from '../../session/context.ts';
import { type PolicySortKey, useDeletePoliciesMutation, usePoliciesQuery } from './api.ts';
import { PoliciesTable } from './PoliciesTable.tsx';
import { PolicyCreateForm } from './PolicyCreateForm.tsx';

/** Delay before a search text is sent, ms: one request per pause in typing, not per key. */
const SEARCH_DEBOUNCE_MS = 300;

/**
 * `/customer/content_filtering/policies` (spec §2): the customer's policies with paging (10 a page,
 * offset = size × page − size), sort (default name ascending) and search (spec §9), a "New policy"
 * form, and "Delete selected" sent as one `/batch` (spec §7 Batch). The default policy cannot be
 * deleted, so it cannot be selected.
 */
export function PoliciesPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<{ key: PolicySortKey; dir: 'asc' | 'desc' }>({ key: 'name', dir: 'asc' });
  const [search, setSearch] = useState('');
  const [filter] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const [opened, { open, close }] = useDisclosure(false);
  const policies = usePoliciesQuery(customerId, {
    ...pageQuery(page),
    sortkey: sort.key,
    sortdir: sort.dir,
    filter,
    show_default: true,
  });
  const rows = policies.data?.data ?? [];
  const selection = useRowSelection(rows.filter((p) => !p.is_default).map((p) => p.id));
  const remove = useDeletePoliciesMutation();
  const toastResult = useMultiDeleteToasts();

  const onSort = (key: PolicySortKey) => {
    setSort((s) => ({ key, dir: s.key === key && s.dir === 'asc' ? 'desc' : 'asc' }));
    setPage(1);
  };
  const onDelete = async () => {
    const ids = selection.selected;
    const names = new Map(rows.map((p) => [String(p.id), p.name]));
    const outcome = await remove.run(ids);
    toastResult({
      deleted: outcome.succeeded.length,
      failed: outcome.failed.map((f) => ({ name: names.get(f.id) ?? f.id, error: f.error })),
    });
    selection.clear();
    // A page emptied by the delete shows the one before it.
    if (outcome.succeeded.length === rows.length && page > 1) setPage(page - 1);
  };

  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('policies.new')}
          </Button>
        }
      />
      <Group justify="space-between" mb="md" wrap="wrap" gap="sm">
        <TextInput
          aria-label={t('common.search')}
          placeholder={t('common.search')}
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
          w={{ base: '100%', sm: 280 }}
        />
        <DeleteSelectedButton count={selection.selected.length} loading={remove.isPending} onConfirm={onDelete} />
      </Group>
      <QueryState query={policies}>
        {(list) => (
          <>
            <PoliciesTable policies={list.data} selection={selection} sort={sort} onSort={onSort} />
            <ListPagination total={list.total} page={page} onChange={setPage} />
          </>
        )}
      </QueryState>
      <Modal opened={opened} onClose={close} title={t('policies.new')} size="lg">
        <PolicyCreateForm customerId={customerId} onDone={close} />
      </Modal>
    </>
  );
}
