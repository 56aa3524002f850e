import type { Location } from '@cordon/shared';
import { Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** A customer's locations (spec §3 "Location"): name, type, addresses and the (effective) policy. */
export function LocationsTable({ locations }: { locations: readonly Location[] }) {
  const { t } = useTranslation();
  if (locations.length === 0) return <Text c="dimmed">{t('common.empty')}</Text>;
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped highlightOnHover data-testid="locations-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('common.name')}</Table.Th>
            <Table.Th>{t('locations.type')}</Table.Th>
            <Table.Th>{t('locations.addresses')}</Table.Th>
            <Table.Th>{t('locations.policy')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {locations.map((l) => (
            <Table.Tr key={l.id}>
              <Table.Td fw={500}>{l.name}</Table.Td>
              <Table.Td>{t(`locations.types.${l.type}`)}</Table.Td>
              <Table.Td>{l.addresses.map((a) => a.ip).join(', ') || l.ip || '—'}</Table.Td>
              <Table.Td>
                {l.policy_id === null ? t('locations.inherited', { name: l.policy_name }) : l.policy_name}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
