import { Constants } from '@cordon/shared';
import { Paper, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useCustomerId } from '../../session/context.ts';
import { useCustomerQuery, useStatsOverviewQuery, useStatsTrafficQuery } from './api.ts';
import { StatsNumbers } from './StatsNumbers.tsx';
import { TrafficChart } from './TrafficChart.tsx';

/** `/customer/overview` (spec §2): today's four numbers and the allowed/blocked traffic chart (spec §9 defaults). */
export function CustomerOverviewPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const customer = useCustomerQuery(customerId);
  const overview = useStatsOverviewQuery(customerId, Constants.dashboardTrafficDefault);
  const traffic = useStatsTrafficQuery(customerId, Constants.dashboardTrafficDefault);
  usePageSubtitle(customer.data?.accountName);
  return (
    <>
      <PageHeader />
      <QueryState query={overview}>{(stats) => <StatsNumbers stats={stats} />}</QueryState>
      <Paper withBorder p="md" radius="md">
        <Title order={2} size="h4" mb="sm">
          {t('stats.traffic')}
        </Title>
        <QueryState query={traffic}>{(data) => <TrafficChart traffic={data} />}</QueryState>
      </Paper>
    </>
  );
}
