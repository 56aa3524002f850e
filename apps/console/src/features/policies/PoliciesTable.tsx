import type { Policy } from '@cordon/shared';
import { Anchor, Badge, Group, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useFilteringLevelLabel } from '../../components/FilteringLevelSelect.tsx';

/** The policies of a customer (spec §3 "Policy"): name, description, level and locations. */
export function PoliciesTable({ policies }: { policies: readonly Policy[] }) {
  const { t } = useTranslation();
  const levelLabel = useFilteringLevelLabel();
  if (policies.length === 0) return <Text c="dimmed">{t('common.empty')}</Text>;
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped highlightOnHover data-testid="policies-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('common.name')}</Table.Th>
            <Table.Th>{t('common.description')}</Table.Th>
            <Table.Th>{t('policies.filteringLevel')}</Table.Th>
            <Table.Th>{t('policies.locations')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {policies.map((p) => (
            <Table.Tr key={p.id}>
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
