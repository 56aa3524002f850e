import { Anchor, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ListFilterSelect, ListToolbar, QueryDataTable, useListState } from '../../components/DataTable.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../../components/RowSelection.tsx';
import { useCustomerId } from '../../session/context.ts';
import {
  type DeviceSortKey,
  useDeleteDevicesMutation,
  useDevicesQuery,
  useLocationChoicesQuery,
  usePolicyChoicesQuery,
} from './api.ts';

/** A last-contact time for a table cell, or "Never". */
export function lastContact(at: string | null, never: string, lang?: string): string {
  return at === null ? never : formatDateTime(at, lang);
}

/**
 * `/customer/environment/devices` (spec-notes §2): the customer's enrolled devices with paging, sort,
 * search and policy and location filters (spec-notes §7 `policyid`, `location_id`), and "Delete selected" as one `/batch` after a
 * confirmation. Devices come from agents enrolling with the install key (Settings → Device configuration).
 */
export function DevicesPage() {
  const { t, i18n } = useTranslation();
  const customerId = useCustomerId();
  const list = useListState<DeviceSortKey>({ key: 'name', dir: 'asc' });
  const [policy, setPolicy] = useState<string | null>(null);
  const [location, setLocation] = useState<string | null>(null);
  const policies = usePolicyChoicesQuery(customerId);
  const locations = useLocationChoicesQuery(customerId);
  const devices = useDevicesQuery(customerId, {
    ...list.query,
    policyid: policy === null ? undefined : Number(policy),
    location_id: location === null ? undefined : Number(location),
  });
  const rows = devices.data?.data ?? [];
  const selection = useRowSelection(rows.map((d) => d.id));
  const remove = useDeleteDevicesMutation(customerId);
  const toastResult = useMultiDeleteToasts();
  const onDelete = async () => {
    const names = new Map(rows.map((d) => [String(d.id), d.name]));
    const outcome = await remove.run(selection.selected);
    toastResult({
      deleted: outcome.succeeded.length,
      failed: outcome.failed.map((f) => ({ name: names.get(f.id) ?? f.id, error: f.error })),
    });
    selection.clear();
    list.afterDelete(outcome.succeeded.length, rows.length);
  };
  return (
    <>
      <PageHeader />
      <Text size="sm" c="dimmed" mb="sm">
        {t('devices.enrolHint')}{' '}
        <Anchor component={Link} to="/customer/settings/device_configuration" underline="always">
          {t('devices.configurationLink')}
        </Anchor>
      </Text>
      <ListToolbar
        list={list}
        searchLabel={t('devices.search')}
        actions={
          <>
            <ListFilterSelect
              list={list}
              label={t('devices.policyFilter')}
              anyLabel={t('devices.anyPolicy')}
              options={policies.data?.data ?? []}
              value={policy}
              onChange={setPolicy}
            />
            <ListFilterSelect
              list={list}
              label={t('devices.locationFilter')}
              anyLabel={t('devices.anyLocation')}
              options={locations.data?.data ?? []}
              value={location}
              onChange={setLocation}
            />
            <DeleteSelectedButton
              count={selection.selected.length}
              loading={remove.isPending}
              onConfirm={onDelete}
              items={rows.filter((d) => selection.selected.includes(d.id)).map((d) => ({ id: d.id, name: d.name }))}
              kind="devices"
            />
          </>
        }
      />
      <QueryDataTable
        query={devices}
        list={list}
        testId="devices-table"
        minWidth={760}
        emptyText={t('devices.empty')}
        rowKey={(d) => d.id}
        select={{ selection, rowId: (d) => d.id, rowName: (d) => d.name }}
        columns={[
          {
            key: 'name',
            header: t('common.name'),
            sortKey: 'name',
            render: (d) => (
              <Anchor component={Link} to={`/customer/environment/devices/${d.id}`} fw={500}>
                {d.name}
              </Anchor>
            ),
          },
          { key: 'os', header: t('devices.os'), sortKey: 'os_type', render: (d) => d.os_type || '—' },
          { key: 'version', header: t('devices.version'), sortKey: 'version', render: (d) => d.version || '—' },
          {
            key: 'contact',
            header: t('devices.lastContact'),
            sortKey: 'last_contact',
            render: (d) => lastContact(d.last_contact, t('devices.never'), i18n.language),
          },
          { key: 'location', header: t('devices.location'), render: (d) => d.location_name ?? '—' },
          { key: 'policy', header: t('devices.policy'), render: (d) => d.policy },
          { key: 'exception', header: t('devices.exception'), render: (d) => d.exception ?? '—' },
        ]}
      />
    </>
  );
}
