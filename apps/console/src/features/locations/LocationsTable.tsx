import type { Location } from '@cordon/shared';
import { Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { RowCheckbox, type RowSelection, SelectAllCheckbox } from '../../components/RowSelection.tsx';

/**
 * A customer's locations (spec §3 "Location"): a checkbox (static-IP locations, the type with a delete
 * route), name, type, addresses and the (effective) policy.
 */
export function LocationsTable({ locations, selection }: { locations: readonly Location[]; selection: RowSelection }) {
  const { t } = useTranslation();
  if (locations.length === 0) return <Text c="dimmed">{t('common.empty')}</Text>;
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped highlightOnHover data-testid="locations-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={40}>
              <SelectAllCheckbox selection={selection} disabled={locations.every((l) => l.type !== 'staticip')} />
            </Table.Th>
            <Table.Th>{t('common.name')}</Table.Th>
            <Table.Th>{t('locations.type')}</Table.Th>
            <Table.Th>{t('locations.addresses')}</Table.Th>
            <Table.Th>{t('locations.policy')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {locations.map((l) => (
            <Table.Tr key={l.id}>
              <Table.Td>
                {l.type === 'staticip' ? <RowCheckbox selection={selection} id={l.id} name={l.name} /> : null}
              </Table.Td>
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
