import type { Policy } from '@cordon/shared';
import { Anchor, Badge, Group } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { type ListPage, type ListState, QueryDataTable } from '../../components/DataTable.tsx';
import { useFilteringLevelLabel } from '../../components/FilteringLevelSelect.tsx';
import type { RowSelection } from '../../components/RowSelection.tsx';
import type { PolicySortKey } from './api.ts';

/**
 * The policies of a customer (spec-notes §3 "Policy"), with loading, error and empty states and paging:
 * a checkbox (not on the default policy, which cannot be deleted), name, description, level and
 * locations; name and level sort.
 */
export function PoliciesTable(props: {
  query: UseQueryResult<ListPage<Policy>>;
  selection: RowSelection;
  list: ListState<PolicySortKey>;
}) {
  const { t } = useTranslation();
  const levelLabel = useFilteringLevelLabel();
  return (
    <QueryDataTable
      query={props.query}
      list={props.list}
      testId="policies-table"
      minWidth={640}
      rowKey={(p) => p.id}
      select={{
        selection: props.selection,
        rowId: (p) => p.id,
        rowName: (p) => p.name,
        selectable: (p) => !p.is_default,
      }}
      columns={[
        {
          key: 'name',
          header: t('common.name'),
          sortKey: 'name',
          render: (p) => (
            <Group gap="xs" wrap="nowrap">
              <Anchor component={Link} to={`/customer/content_filtering/policies/${p.id}`} fw={500}>
                {p.name}
              </Anchor>
              {p.is_default ? (
                <Badge size="xs" variant="light">
                  {t('common.default')}
                </Badge>
              ) : null}
            </Group>
          ),
        },
        { key: 'description', header: t('common.description'), render: (p) => p.description },
        {
          key: 'level',
          header: t('policies.filteringLevel'),
          sortKey: 'filtering_level',
          render: (p) => levelLabel(p.filtering_level),
        },
        { key: 'locations', header: t('policies.locations'), render: (p) => p.locations.map((l) => l.name).join(', ') },
      ]}
    />
  );
}
