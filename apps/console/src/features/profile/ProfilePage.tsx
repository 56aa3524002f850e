import { Paper, Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { useSession } from '../../session/context.ts';

/** `/profile` (spec §2 userprofile layout): the signed-in user's account, from the token claims (spec §3). */
export function ProfilePage() {
  const { t } = useTranslation();
  const { claims } = useSession();
  if (!claims) return null;
  const rows: [string, string][] = [
    [t('profile.name'), claims.name],
    [t('profile.email'), claims.email],
    [t('profile.account'), claims.account_name],
    [t('profile.role'), t(`profile.roles.${claims.vue_role}`)],
    [t('profile.twoFactor'), claims['2fa_enabled'] ? t('profile.on') : t('profile.off')],
  ];
  return (
    <>
      <PageHeader />
      <Paper withBorder p="md" radius="md" maw={560}>
        <Table variant="vertical" withRowBorders={false}>
          <Table.Tbody>
            {rows.map(([label, value]) => (
              <Table.Tr key={label}>
                <Table.Th w={220}>{label}</Table.Th>
                <Table.Td>{value}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Paper>
    </>
  );
}
