import type { Policy } from '@cordon/shared';
import { Anchor, Badge, Group, Table, Text, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconChevronUp, IconSelector } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useFilteringLevelLabel } from '../../components/FilteringLevelSelect.tsx';
import { RowCheckbox, type RowSelection, SelectAllCheckbox } from '../../components/RowSelection.tsx';
import type { PolicySortKey } from './api.ts';

/** The list's sort: a key of the API's policy list and its direction. */
export interface PolicySort {
  key: PolicySortKey;
  dir: 'asc' | 'desc';
}

/** A column header that sorts by `sortKey`: a button announcing the current direction (`aria-sort`). */
function SortableTh(props: {
  sortKey: PolicySortKey;
  sort: PolicySort;
  onSort: (key: PolicySortKey) => void;
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

/**
 * The policies of a customer (spec §3 "Policy"): a checkbox (not on the default policy, which cannot
 * be deleted), name, description, level and locations; name and level sort.
 */
export function PoliciesTable(props: {
  policies: readonly Policy[];
  selection: RowSelection;
  sort: PolicySort;
  onSort: (key: PolicySortKey) => void;
}) {
  const { t } = useTranslation();
  const levelLabel = useFilteringLevelLabel();
  const { policies, selection } = props;
  if (policies.length === 0) return <Text c="dimmed">{t('common.empty')}</Text>;
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped highlightOnHover data-testid="policies-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={40}>
              <SelectAllCheckbox selection={selection} disabled={policies.every((p) => p.is_default)} />
            </Table.Th>
            <SortableTh sortKey="name" sort={props.sort} onSort={props.onSort}>
              {t('common.name')}
            </SortableTh>
            <Table.Th>{t('common.description')}</Table.Th>
            <SortableTh sortKey="filtering_level" sort={props.sort} onSort={props.onSort}>
              {t('policies.filteringLevel')}
            </SortableTh>
            <Table.Th>{t('policies.locations')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {policies.map((p) => (
            <Table.Tr key={p.id}>
              <Table.Td>{p.is_default ? null : <RowCheckbox selection={selection} id={p.id} name={p.name} />}</Table.Td>
              <Table.Td>
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
              </Table.Td>
              <Table.Td>{p.description}</Table.Td>
              <Table.Td>{levelLabel(p.filtering_level)}</Table.Td>
              <Table.Td>{p.locations.map((l) => l.name).join(', ')}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
