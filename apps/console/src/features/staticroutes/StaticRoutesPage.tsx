import type { StaticRoute } from '@cordon/shared';
import { ActionIcon, Button, Group, Modal, Table, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useDebouncedValue, useDisclosure } from '@mantine/hooks';
import { IconChevronDown, IconChevronUp, IconPlus, IconSearch, IconSelector, IconTrash } from '@tabler/icons-react';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListPagination, pageQuery } from '../../components/ListPagination.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import { type StaticRouteSortKey, useDeleteStaticRouteMutation, useStaticRoutesQuery } from './api.ts';
import { StaticRouteCreateForm } from './StaticRouteCreateForm.tsx';

/** Delay before a search text is sent, ms: one request per pause in typing, not per key. */
const SEARCH_DEBOUNCE_MS = 300;

interface Sort {
  key: StaticRouteSortKey;
  dir: 'asc' | 'desc';
}

/** A column header that sorts by `sortKey`: a button announcing the current direction (`aria-sort`). */
function SortableTh(props: {
  sortKey: StaticRouteSortKey;
  sort: Sort;
  onSort: (key: StaticRouteSortKey) => void;
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

/** A row's delete button: asks for confirmation, then deletes and toasts (errors: global handling, spec §8). */
function DeleteRouteButton({ route, onDeleted }: { route: StaticRoute; onDeleted: () => void }) {
  const { t } = useTranslation();
  const [opened, { open, close }] = useDisclosure(false);
  const remove = useDeleteStaticRouteMutation(route.id);
  const confirm = () =>
    remove.mutate(undefined, {
      onSuccess: () => {
        showSuccessToast(t('staticRoutes.deleted'));
        close();
        onDeleted();
      },
    });
  return (
    <>
      <ActionIcon
        variant="subtle"
        color="red"
        onClick={open}
        aria-label={t('staticRoutes.deleteRow', { domain: route.domain })}
      >
        <IconTrash size={16} />
      </ActionIcon>
      <Modal opened={opened} onClose={close} title={t('staticRoutes.confirmDeleteTitle')}>
        <Text mb="md">{t('staticRoutes.confirmDeleteText', { domain: route.domain })}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            {t('common.cancel')}
          </Button>
          <Button color="red" loading={remove.isPending} onClick={confirm}>
            {t('common.delete')}
          </Button>
        </Group>
      </Modal>
    </>
  );
}

/**
 * `/customer/settings/static_routes` (docs/decisions.md "Static routes"): the customer's static routes
 * (domain → DNS server) with paging (10 a page), sort (default domain ascending) and search (spec §9),
 * a "New static route" form and a confirmed delete per row.
 */
export function StaticRoutesPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<Sort>({ key: 'domain', dir: 'asc' });
  const [search, setSearch] = useState('');
  const [filter] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const [opened, { open, close }] = useDisclosure(false);
  const routes = useStaticRoutesQuery(customerId, { ...pageQuery(page), sortkey: sort.key, sortdir: sort.dir, filter });
  const rows = routes.data?.data ?? [];

  const onSort = (key: StaticRouteSortKey) => {
    setSort((s) => ({ key, dir: s.key === key && s.dir === 'asc' ? 'desc' : 'asc' }));
    setPage(1);
  };
  // A page emptied by the delete shows the one before it.
  const onDeleted = () => {
    if (rows.length === 1 && page > 1) setPage(page - 1);
  };

  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('staticRoutes.new')}
          </Button>
        }
      />
      <Text c="dimmed" size="sm" mb="md">
        {t('staticRoutes.intro')}
      </Text>
      <Group mb="md">
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
      </Group>
      <QueryState query={routes}>
        {(list) =>
          list.data.length === 0 ? (
            <Text c="dimmed">{t('common.empty')}</Text>
          ) : (
            <>
              <Table.ScrollContainer minWidth={560}>
                <Table striped highlightOnHover data-testid="static-routes-table">
                  <Table.Thead>
                    <Table.Tr>
                      <SortableTh sortKey="domain" sort={sort} onSort={onSort}>
                        {t('staticRoutes.domain')}
                      </SortableTh>
                      <SortableTh sortKey="resolver" sort={sort} onSort={onSort}>
                        {t('staticRoutes.resolver')}
                      </SortableTh>
                      <Table.Th>{t('common.description')}</Table.Th>
                      <Table.Th w={48} />
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {list.data.map((r) => (
                      <Table.Tr key={r.id}>
                        <Table.Td fw={500}>{r.domain}</Table.Td>
                        <Table.Td ff="monospace">{r.resolver}</Table.Td>
                        <Table.Td>{r.description}</Table.Td>
                        <Table.Td>
                          <DeleteRouteButton route={r} onDeleted={onDeleted} />
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
      <Modal opened={opened} onClose={close} title={t('staticRoutes.new')} size="lg">
        <StaticRouteCreateForm customerId={customerId} onDone={close} />
      </Modal>
    </>
  );
}
