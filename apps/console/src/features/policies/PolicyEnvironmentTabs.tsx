import { deviceEndpoints, locationEndpoints } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../api/hooks.ts';
import { ListToolbar, QueryDataTable, useListState } from '../../components/DataTable.tsx';
import { useFormat } from '../../components/format.ts';

/**
 * The policy's **locations** tab (spec-notes §2 "Policy {id}" `/locations`): the customer's locations
 * whose effective policy this is (named, or inherited when it is the default policy), through
 * `GET /users/{id}/locations/all?policy_id=` with paging, sort and search.
 */
export function PolicyLocationsTab({ policyId, customerId }: { policyId: number; customerId: number }) {
  const { t } = useTranslation();
  const list = useListState<'name' | 'type'>({ key: 'name', dir: 'asc' });
  const locations = useEndpointQuery(
    locationEndpoints.list,
    {
      params: { id: customerId, type: 'all' },
      query: {
        limit: list.query.limit,
        offset: list.query.offset,
        sortkey: list.query.sortkey,
        sortdir: list.query.sortdir,
        policy_id: policyId,
        ...(list.query.filter ? { filter: list.query.filter } : {}),
      },
    },
    { placeholderData: keepPreviousData },
  );
  return (
    <>
      <ListToolbar list={list} />
      <QueryDataTable
        query={locations}
        list={list}
        testId="policy-locations-table"
        minWidth={520}
        emptyText={t('policies.noLocations')}
        rowKey={(l) => l.id}
        columns={[
          { key: 'name', header: t('common.name'), sortKey: 'name', render: (l) => l.name },
          {
            key: 'type',
            header: t('policies.locationType'),
            sortKey: 'type',
            render: (l) => t(`policies.locationTypes.${l.type}`),
          },
          {
            key: 'where',
            header: t('policies.locationAddresses'),
            render: (l) => l.addresses.map((a) => a.ip).join(', ') || l.hostname || '—',
            td: { ff: 'monospace', fz: 'sm' },
          },
        ]}
      />
    </>
  );
}

/**
 * The policy's **devices** tab (spec-notes §2 "Policy {id}" `/devices`, optionally shown): the devices
 * that get this policy without a user, through `GET /users/{id}/devices?policyid=`.
 */
export function PolicyDevicesTab({ policyId, customerId }: { policyId: number; customerId: number }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const list = useListState<'name' | 'last_contact'>({ key: 'name', dir: 'asc' });
  const devices = useEndpointQuery(
    deviceEndpoints.list,
    {
      params: { id: customerId },
      query: {
        limit: list.query.limit,
        offset: list.query.offset,
        sortkey: list.query.sortkey,
        sortdir: list.query.sortdir,
        policyid: policyId,
        ...(list.query.filter ? { filter: list.query.filter } : {}),
      },
    },
    { placeholderData: keepPreviousData },
  );
  return (
    <>
      <ListToolbar list={list} />
      <QueryDataTable
        query={devices}
        list={list}
        testId="policy-devices-table"
        minWidth={520}
        emptyText={t('policies.noDevices')}
        rowKey={(d) => d.id}
        columns={[
          { key: 'name', header: t('common.name'), sortKey: 'name', render: (d) => d.name },
          { key: 'os', header: t('policies.deviceOs'), render: (d) => d.os_type || '—' },
          {
            key: 'contact',
            header: t('policies.deviceLastContact'),
            sortKey: 'last_contact',
            render: (d) => (d.last_contact ? fmt.dateTime(d.last_contact) : '—'),
          },
        ]}
      />
    </>
  );
}
