import type { Customer } from '@cordon/shared';
import { Anchor, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** The customers of an MSP (spec §3 "Customer account"); opening one goes to its customer area. */
export function CustomersTable({
  customers,
  onOpen,
}: {
  customers: readonly Customer[];
  onOpen: (c: Customer) => void;
}) {
  const { t } = useTranslation();
  if (customers.length === 0) return <Text c="dimmed">{t('common.empty')}</Text>;
  return (
    <Table.ScrollContainer minWidth={520}>
      <Table striped highlightOnHover data-testid="customers-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('customers.accountName')}</Table.Th>
            <Table.Th>{t('common.timezone')}</Table.Th>
            <Table.Th>{t('common.created')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {customers.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td>
                <Anchor component={Link} to="/customer/overview" onClick={() => onOpen(c)} fw={500}>
                  {c.accountName}
                </Anchor>
              </Table.Td>
              <Table.Td>{c.timezone || t('common.useSystemDefault')}</Table.Td>
              <Table.Td>{new Date(c.created_at).toLocaleDateString()}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
