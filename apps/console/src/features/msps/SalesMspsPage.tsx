import { Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListPagination } from '../../components/ListPagination.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useMspsQuery } from './api.ts';
import { MspsTable } from './MspsTable.tsx';

/** `/sales/msps` (spec §2 Sales): the MSP list, read-only (docs/architecture.md "Tenancy"). */
export function SalesMspsPage() {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const msps = useMspsQuery(page);
  return (
    <>
      <PageHeader />
      <Text c="dimmed" mb="md">
        {t('msps.readOnly')}
      </Text>
      <QueryState query={msps}>
        {(list) => (
          <>
            <MspsTable msps={list.data} />
            <ListPagination total={list.total} page={page} onChange={setPage} />
          </>
        )}
      </QueryState>
    </>
  );
}
