import type { Msp } from '@cordon/shared';
import { ActionIcon, Anchor } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import type { UseQueryResult } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { type ListPage, type ListState, QueryDataTable } from '../../components/DataTable.tsx';
import { DeferredTooltip } from '../../components/Deferred.tsx';
import type { RowSelection } from '../../components/RowSelection.tsx';
import type { MspSortKey } from './api.ts';

/**
 * The MSP list (spec-notes §3 "MSP"): name, company, licence and customers, with sort, paging and, for
 * the system admin, a checkbox per row. The name opens the MSP: `onOpen` (the system admin acts on
 * it in the MSP area) or its id page under `basePath` (sales); the details button opens the id page.
 */
export function MspsTable(props: {
  query: UseQueryResult<ListPage<Msp>>;
  list: ListState<MspSortKey>;
  basePath: string;
  selection?: RowSelection;
  onOpen?: (msp: Msp) => void;
}) {
  const { t } = useTranslation();
  return (
    <QueryDataTable
      query={props.query}
      list={props.list}
      testId="msps-table"
      rowKey={(m) => m.id}
      {...(props.selection
        ? { select: { selection: props.selection, rowId: (m: Msp) => m.id, rowName: (m: Msp) => m.name } }
        : {})}
      columns={[
        {
          key: 'name',
          header: t('msps.name'),
          sortKey: 'name',
          render: (m) => (
            <Anchor
              component={Link}
              to={props.onOpen ? '/msp/overview' : `${props.basePath}/${m.id}`}
              onClick={() => props.onOpen?.(m)}
              fw={500}
            >
              {m.name}
            </Anchor>
          ),
        },
        { key: 'company', header: t('msps.company'), sortKey: 'company_name', render: (m) => m.company_name },
        { key: 'license', header: t('msps.license'), sortKey: 'license', render: (m) => m.license || '—' },
        { key: 'customers', header: t('msps.customers'), render: (m) => m.customers_count, td: { ta: 'right' } },
        {
          key: 'details',
          header: t('msps.details'),
          w: 72,
          render: (m) => (
            <DeferredTooltip label={t('msps.details')}>
              <ActionIcon
                component={Link}
                to={`${props.basePath}/${m.id}`}
                variant="subtle"
                aria-label={t('msps.details')}
              >
                <IconInfoCircle size={18} aria-hidden />
              </ActionIcon>
            </DeferredTooltip>
          ),
        },
      ]}
    />
  );
}
