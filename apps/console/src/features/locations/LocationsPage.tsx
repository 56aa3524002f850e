import { LOCATION_TYPES, type LocationType } from '@cordon/shared';
import { Anchor, Button, Modal, Select } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ListToolbar, QueryDataTable, useListState } from '../../components/DataTable.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../../components/RowSelection.tsx';
import { useCustomerId } from '../../session/context.ts';
import {
  type LocationSortKey,
  useDeleteLocationsMutation,
  useLocationDependantsFetcher,
  useLocationsQuery,
} from './api.ts';
import { LocationCreateForm } from './LocationCreateForm.tsx';
import { locationPath, locationWhere } from './paths.ts';

/**
 * `/customer/environment/locations` (spec-notes §2): the customer's locations of every type with paging,
 * sort, search (name, host or address) and a type filter (spec-notes §9), "New location" for each of the
 * five types, and "Delete selected" sent as one `/batch` after a confirmation (spec-notes §7 Batch).
 */
export function LocationsPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const [opened, { open, close }] = useDisclosure(false);
  const [type, setType] = useState<LocationType | 'all'>('all');
  const list = useListState<LocationSortKey>({ key: 'name', dir: 'asc' });
  const locations = useLocationsQuery(customerId, type, list.query);
  const rows = locations.data?.data ?? [];
  const selection = useRowSelection(rows.map((l) => l.id));
  const remove = useDeleteLocationsMutation(customerId);
  // The dialog names what each delete breaks (addresses, devices seen there): docs/api.md "Deletes of things in use".
  const fetchDependants = useLocationDependantsFetcher(customerId, (id) => rows.find((l) => l.id === id)?.type);
  const toastResult = useMultiDeleteToasts();
  const onDelete = async () => {
    const byId = new Map(rows.map((l) => [l.id, l]));
    const targets = selection.selected.flatMap((id) => {
      const l = byId.get(id);
      return l ? [{ id, type: l.type }] : [];
    });
    const outcome = await remove.run(targets);
    toastResult({
      deleted: outcome.succeeded.length,
      failed: outcome.failed.map((f) => ({ name: byId.get(Number(f.id))?.name ?? f.id, error: f.error })),
    });
    selection.clear();
    list.afterDelete(outcome.succeeded.length, rows.length);
  };
  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('locations.new')}
          </Button>
        }
      />
      <ListToolbar
        list={list}
        searchLabel={t('locations.search')}
        actions={
          <>
            <Select
              aria-label={t('locations.typeFilter')}
              data={[
                { value: 'all', label: t('locations.allTypes') },
                ...LOCATION_TYPES.map((v) => ({ value: v, label: t(`locations.types.${v}`) })),
              ]}
              value={type}
              allowDeselect={false}
              w={170}
              onChange={(v) => {
                setType((v ?? 'all') as LocationType | 'all');
                list.setPage(1);
                selection.clear();
              }}
            />
            <DeleteSelectedButton
              count={selection.selected.length}
              loading={remove.isPending}
              onConfirm={onDelete}
              items={rows.filter((l) => selection.selected.includes(l.id)).map((l) => ({ id: l.id, name: l.name }))}
              kind="locations"
              fetchDependants={fetchDependants}
            />
          </>
        }
      />
      <QueryDataTable
        query={locations}
        list={list}
        testId="locations-table"
        minWidth={640}
        rowKey={(l) => l.id}
        select={{ selection, rowId: (l) => l.id, rowName: (l) => l.name }}
        columns={[
          {
            key: 'name',
            header: t('common.name'),
            sortKey: 'name',
            render: (l) => (
              <Anchor component={Link} to={locationPath(l)} fw={500}>
                {l.name}
              </Anchor>
            ),
          },
          { key: 'type', header: t('locations.type'), sortKey: 'type', render: (l) => t(`locations.types.${l.type}`) },
          { key: 'where', header: t('locations.addresses'), render: locationWhere, td: { ff: 'monospace', fz: 'sm' } },
          {
            key: 'policy',
            header: t('locations.policy'),
            render: (l) => (l.policy_id === null ? t('locations.inherited', { name: l.policy_name }) : l.policy_name),
          },
        ]}
      />
      <Modal opened={opened} onClose={close} title={t('locations.new')} size="lg">
        <LocationCreateForm customerId={customerId} onDone={close} />
      </Modal>
    </>
  );
}
