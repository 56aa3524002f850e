import { ErrorTexts } from '@cordon/shared';
import { Anchor, Badge, Button, Group, Modal, Table, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useDebouncedValue, useDisclosure } from '@mantine/hooks';
import { IconChevronDown, IconChevronUp, IconPlus, IconSearch, IconSelector } from '@tabler/icons-react';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ListPagination, pageQuery } from '../../components/ListPagination.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import {
  DeleteSelectedButton,
  RowCheckbox,
  SelectAllCheckbox,
  useMultiDeleteToasts,
  useRowSelection,
} from '../../components/RowSelection.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import {
  type CloudKeySortKey,
  useCloudKeysQuery,
  useCreateCloudKeyMutation,
  useDeleteCloudKeysMutation,
} from './api.ts';
import { CloudKeyForm } from './CloudKeyForm.tsx';

const SEARCH_DEBOUNCE_MS = 300;
type Sort = { key: CloudKeySortKey; dir: 'asc' | 'desc' };

/** A column header that sorts by `sortKey`, announcing the current direction (`aria-sort`). */
function SortableTh(props: {
  sortKey: CloudKeySortKey;
  sort: Sort;
  onSort: (k: CloudKeySortKey) => void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const active = props.sort.key === props.sortKey;
  const Icon = !active ? IconSelector : props.sort.dir === 'asc' ? IconChevronUp : IconChevronDown;
  return (
    <Table.Th aria-sort={active ? (props.sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <UnstyledButton
        onClick={() => props.onSort(props.sortKey)}
        aria-label={t('common.sortBy', { column: String(props.children) })}
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

/**
 * `/customer/content_filtering/cloud_keys` (spec §2 "cloud keys"): the customer's cloud keys with
 * paging, sort and search (spec §9), "New cloud key" (toast "Cloud Key added", spec §8) and
 * "Delete selected" as one `/batch` after a confirmation. The maximum uses are not shown in the list
 * (spec §9); the key id page has them.
 */
export function CloudKeysPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<Sort>({ key: 'name', dir: 'asc' });
  const [search, setSearch] = useState('');
  const [filter] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const [opened, { open, close }] = useDisclosure(false);
  const keys = useCloudKeysQuery(customerId, { ...pageQuery(page), sortkey: sort.key, sortdir: sort.dir, filter });
  const rows = keys.data?.data ?? [];
  const selection = useRowSelection(rows.map((k) => k.id));
  const create = useCreateCloudKeyMutation(customerId);
  const remove = useDeleteCloudKeysMutation(customerId);
  const toastResult = useMultiDeleteToasts();

  const onSort = (key: CloudKeySortKey) => {
    setSort((s) => ({ key, dir: s.key === key && s.dir === 'asc' ? 'desc' : 'asc' }));
    setPage(1);
  };
  const onDelete = async () => {
    const names = new Map(rows.map((k) => [String(k.id), k.key]));
    const outcome = await remove.run(selection.selected);
    toastResult({
      deleted: outcome.succeeded.length,
      failed: outcome.failed.map((f) => ({ name: names.get(f.id) ?? f.id, error: f.error })),
    });
    selection.clear();
    if (outcome.succeeded.length === rows.length && page > 1) setPage(page - 1);
  };

  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('cloudkeys.new')}
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
      <QueryState query={keys}>
        {(list) =>
          list.data.length === 0 ? (
            <Text c="dimmed">{t('common.empty')}</Text>
          ) : (
            <>
              <Table.ScrollContainer minWidth={560}>
                <Table striped highlightOnHover data-testid="cloudkeys-table">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th w={40}>
                        <SelectAllCheckbox selection={selection} />
                      </Table.Th>
                      <SortableTh sortKey="name" sort={sort} onSort={onSort}>
                        {t('cloudkeys.key')}
                      </SortableTh>
                      <SortableTh sortKey="description" sort={sort} onSort={onSort}>
                        {t('common.description')}
                      </SortableTh>
                      <SortableTh sortKey="times_used" sort={sort} onSort={onSort}>
                        {t('cloudkeys.timesUsed')}
                      </SortableTh>
                      <Table.Th>{t('cloudkeys.expiresAfter')}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {list.data.map((k) => (
                      <Table.Tr key={k.id}>
                        <Table.Td>
                          <RowCheckbox selection={selection} id={k.id} name={k.key} />
                        </Table.Td>
                        <Table.Td>
                          <Group gap="xs" wrap="nowrap">
                            <Anchor component={Link} to={`/customer/content_filtering/cloud_keys/${k.id}`} fw={500}>
                              {k.key}
                            </Anchor>
                            {k.active ? null : (
                              <Badge size="xs" variant="light" color="gray">
                                {t('cloudkeys.inactive')}
                              </Badge>
                            )}
                          </Group>
                        </Table.Td>
                        <Table.Td>{k.description}</Table.Td>
                        <Table.Td>{k.times_used}</Table.Td>
                        <Table.Td>{t('cloudkeys.minutes', { count: Math.round(k.expires_after / 60) })}</Table.Td>
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
      <Modal opened={opened} onClose={close} title={t('cloudkeys.new')} size="lg">
        <CloudKeyForm
          cloudKey={null}
          pending={create.isPending}
          onCancel={close}
          submit={(body) =>
            create.mutateAsync(body).then(() => {
              showSuccessToast(ErrorTexts.cloudKeyAdded);
              close();
            })
          }
        />
      </Modal>
    </>
  );
}
