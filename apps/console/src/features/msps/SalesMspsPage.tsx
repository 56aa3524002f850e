import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ListToolbar, useListState } from '../../components/DataTable.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { type MspSortKey, useMspsQuery } from './api.ts';
import { MspsTable } from './MspsTable.tsx';

/** `/sales/msps` (spec-notes §2 Sales): the MSP list, read-only, with search, sort and paging (spec-notes §9). */
export function SalesMspsPage() {
  const { t } = useTranslation();
  const list = useListState<MspSortKey>({ key: 'name', dir: 'asc' });
  const msps = useMspsQuery(list.query);
  return (
    <>
      <PageHeader />
      <Text c="dimmed" mb="md">
        {t('msps.readOnly')}
      </Text>
      <ListToolbar list={list} />
      <MspsTable query={msps} list={list} basePath="/sales/msps" />
    </>
  );
}
