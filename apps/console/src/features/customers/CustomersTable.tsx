import { accountShortName, type Customer } from '@cordon/shared';
import { ActionIcon, Anchor, Avatar, Group, Tooltip } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import type { UseQueryResult } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { type ListPage, type ListState, QueryDataTable } from '../../components/DataTable.tsx';
import { useFormat } from '../../components/format.ts';
import type { RowSelection } from '../../components/RowSelection.tsx';
import type { CustomerSortKey } from './api.ts';

/**
 * The customers of an MSP (spec §3 "Customer account"): the account's short name (spec §9: first
 * letters of the first two words) and name, time zone and creation date, with sort, paging and a
 * checkbox per row. The name opens the customer's area (`onOpen` selects it); the details button
 * its id page.
 */
export function CustomersTable(props: {
  query: UseQueryResult<ListPage<Customer>>;
  list: ListState<CustomerSortKey>;
  selection: RowSelection;
  onOpen: (c: Customer) => void;
}) {
  const { t } = useTranslation();
  const fmt = useFormat();
  return (
    <QueryDataTable
      query={props.query}
      list={props.list}
      testId="customers-table"
      minWidth={520}
      rowKey={(c) => c.id}
      select={{ selection: props.selection, rowId: (c) => c.id, rowName: (c) => c.accountName }}
      columns={[
        {
          key: 'name',
          header: t('customers.accountName'),
          sortKey: 'name',
          render: (c) => (
            <Group gap="xs" wrap="nowrap">
              <Avatar size="sm" radius="xl" color="blue" aria-hidden>
                {accountShortName(c.accountName)}
              </Avatar>
              <Anchor component={Link} to="/customer/overview" onClick={() => props.onOpen(c)} fw={500}>
                {c.accountName}
              </Anchor>
            </Group>
          ),
        },
        {
          key: 'timezone',
          header: t('common.timezone'),
          sortKey: 'timezone',
          render: (c) => c.timezone || t('common.useSystemDefault'),
        },
        {
          key: 'created',
          header: t('common.created'),
          sortKey: 'created_at',
          render: (c) => fmt.date(c.created_at),
        },
        {
          key: 'details',
          header: t('customers.details'),
          w: 72,
          render: (c) => (
            <Tooltip label={t('customers.details')}>
              <ActionIcon
                component={Link}
                to={`/msp/overview/${c.id}`}
                variant="subtle"
                aria-label={t('customers.details')}
              >
                <IconInfoCircle size={18} aria-hidden />
              </ActionIcon>
            </Tooltip>
          ),
        },
      ]}
    />
  );
}
