import type { StaticRoute } from '@cordon/shared';
import { ActionIcon, Button, Group, Modal, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ListToolbar, QueryDataTable, useListState } from '../../components/DataTable.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import { type StaticRouteSortKey, useDeleteStaticRouteMutation, useStaticRoutesQuery } from './api.ts';
import { StaticRouteCreateForm } from './StaticRouteCreateForm.tsx';

/** A row's delete button: asks for confirmation, then deletes and toasts (errors: global handling, spec-notes §8). */
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
 * (domain → DNS server) with paging (10 a page), sort (default domain ascending) and search (spec-notes §9),
 * a "New static route" form and a confirmed delete per row.
 */
export function StaticRoutesPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const list = useListState<StaticRouteSortKey>({ key: 'domain', dir: 'asc' });
  const [opened, { open, close }] = useDisclosure(false);
  const routes = useStaticRoutesQuery(customerId, list.query);
  const rows = routes.data?.data ?? [];
  // A page emptied by the delete shows the one before it.
  const onDeleted = () => list.afterDelete(1, rows.length);

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
      <ListToolbar list={list} />
      <QueryDataTable
        query={routes}
        list={list}
        testId="static-routes-table"
        rowKey={(r) => r.id}
        columns={[
          {
            key: 'domain',
            header: t('staticRoutes.domain'),
            sortKey: 'domain',
            render: (r) => r.domain,
            td: { fw: 500 },
          },
          {
            key: 'resolver',
            header: t('staticRoutes.resolver'),
            sortKey: 'resolver',
            render: (r) => r.resolver,
            td: { ff: 'monospace' },
          },
          { key: 'description', header: t('common.description'), render: (r) => r.description },
          { key: 'actions', header: '', w: 48, render: (r) => <DeleteRouteButton route={r} onDeleted={onDeleted} /> },
        ]}
      />
      <Modal opened={opened} onClose={close} title={t('staticRoutes.new')} size="lg">
        <StaticRouteCreateForm customerId={customerId} onDone={close} />
      </Modal>
    </>
  );
}
