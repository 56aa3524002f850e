import type { Msp } from '@cordon/shared';
import { Anchor, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** The MSP list (spec §3 "MSP"): name, company, license and the number of customers. */
export function MspsTable({ msps, onOpen }: { msps: readonly Msp[]; onOpen?: (msp: Msp) => void }) {
  const { t } = useTranslation();
  if (msps.length === 0) return <Text c="dimmed">{t('common.empty')}</Text>;
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table striped highlightOnHover data-testid="msps-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('msps.name')}</Table.Th>
            <Table.Th>{t('msps.company')}</Table.Th>
            <Table.Th>{t('msps.license')}</Table.Th>
            <Table.Th ta="right">{t('msps.customers')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {msps.map((msp) => (
            <Table.Tr key={msp.id}>
              <Table.Td>
                {onOpen ? (
                  <Anchor component={Link} to="/msp/overview" onClick={() => onOpen(msp)} fw={500}>
                    {msp.name}
                  </Anchor>
                ) : (
                  msp.name
                )}
              </Table.Td>
              <Table.Td>{msp.company_name}</Table.Td>
              <Table.Td>{msp.license}</Table.Td>
              <Table.Td ta="right">{msp.customers_count}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
