import type { StatsTop } from '@cordon/shared';
import { Box, Paper, SegmentedControl, SimpleGrid, Skeleton, Title, useMatches } from '@mantine/core';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCategoryName } from '../categoryName.ts';
import { type DrillTarget, historyLink, userKeyFilter } from '../historyLinks.ts';
import { QueryState } from '../QueryState.tsx';
import { type DashboardOwner, type DashboardPeriod, TOP_LISTS, useDashboardQuery } from './api.ts';
import { StatsNumbers } from './StatsNumbers.tsx';
import { TopList } from './TopList.tsx';
import { sparkSeries, trendFor } from './trend.ts';

const PERIODS: readonly DashboardPeriod[] = ['today', 'yesterday', '7days', '30days'];

// The chart library is the console's largest dependency: its chunk loads after the page, beside the
// numbers and top lists, so the overview's first load stays small (bench/README.md "Console first load").
const TrafficChart = lazy(() => import('./charts.tsx').then((m) => ({ default: m.TrafficChart })));
const HistoryChart = lazy(() => import('./charts.tsx').then((m) => ({ default: m.HistoryChart })));

/**
 * The history link of a top-list entry (issue 29 drill-down): its domain, category id or user key,
 * with the list's action and the dashboard's period; null when the key has no history filter.
 */
function topLink(dim: string, action: 'allowed' | 'blocked', period: DashboardPeriod, key: string, name: string) {
  let filter: DrillTarget['filter'] | null = null;
  if (dim === 'domains') filter = { key: 'domain', value: key };
  else if (dim === 'categories' && /^\d+$/.test(key)) filter = { key: 'category', value: key, name };
  else if (dim === 'users') filter = userKeyFilter(key, name);
  return filter ? historyLink({ action, period, filter }) : null;
}

/** A top-categories list with each name in the interface language (the API names them in English; the key is the id). */
function namedCategories(top: StatsTop, categoryName: (id: number, fallback?: string) => string): StatsTop {
  return { ...top, data: top.data.map((item) => ({ ...item, name: categoryName(Number(item.key), item.name) })) };
}

/** A dashboard top-list entry, for the links of an MSP's or the system's dashboard. */
export interface TopEntry {
  dim: 'categories' | 'domains' | 'users';
  action: 'allowed' | 'blocked';
  period: DashboardPeriod;
  key: string;
  name: string;
}

/**
 * Where an MSP's or the system's top-list entries lead (issue 29 drill-down: the page that breaks
 * them down by customer or MSP) and the links' accessible name; null: that entry does not link.
 */
export interface TopDrill {
  linkFor: (entry: TopEntry) => string | null;
  label: (name: string) => string;
  /** Run as a link is followed, before the navigation (e.g. selecting the MSP the page belongs to). */
  onFollow?: () => void;
}

/**
 * The traffic dashboard of a customer, an MSP or the system overview (spec-notes §3 "Stats", §9 dashboard
 * defaults: traffic 'today', history 5 days): a period switch, the four numbers, the hourly traffic
 * chart, the daily history and the top categories, domains and users by allowed and blocked, all
 * fetched in one `/batch` (spec-notes §7 Batch). A customer's numbers and top-list entries link to its
 * history filtered to them (issue 29 drill-down); an MSP's or the system's sum several customers,
 * whose histories are separate: their entries link where `topDrill` says (a breakdown page).
 */
export function Dashboard({ owner, topDrill }: { owner: DashboardOwner; topDrill?: TopDrill }) {
  const { t } = useTranslation();
  const categoryName = useCategoryName();
  const [period, setPeriod] = useState<DashboardPeriod>('today');
  const compact = useMatches({ base: 'xs', sm: 'sm' });
  const query = useDashboardQuery(owner, period);
  const periodLabel = t(`dashboard.periods.${period}`);
  // Over 7 and 30 days one bar per day, the hours summed in the formatter's zone (issue 29).
  const daily = period === '7days' || period === '30days';
  const drill = owner.kind === 'customer';
  return (
    <Box component="section" aria-label={t('dashboard.label')} data-testid="dashboard" mb="xl">
      <SegmentedControl
        mb="md"
        value={period}
        onChange={(v) => setPeriod(v as DashboardPeriod)}
        data={PERIODS.map((p) => ({ value: p, label: t(`dashboard.periods.${p}`) }))}
        aria-label={t('dashboard.period')}
        fullWidth
        maw={520}
        // On a phone the four periods share 350 px: smaller text, and labels wrap (centred, the
        // indicator as tall as the tallest) instead of the last one being cut off.
        size={compact}
        styles={{
          control: { minWidth: 0 },
          label: {
            whiteSpace: 'normal',
            lineHeight: 1.25,
            height: '100%',
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'center',
          },
        }}
      />
      <QueryState query={query}>
        {(d) => (
          <>
            <StatsNumbers
              stats={d.overview}
              trends={{
                requests: trendFor(period, d.history, 'requests'),
                allowed: trendFor(period, d.history, 'allowed'),
                blocked: trendFor(period, d.history, 'blocked'),
              }}
              series={{
                requests: sparkSeries(d.traffic, 'requests'),
                allowed: sparkSeries(d.traffic, 'allowed'),
                blocked: sparkSeries(d.traffic, 'blocked'),
              }}
              {...(drill
                ? {
                    linkFor: (key) =>
                      historyLink({ period, action: key === 'allowed' || key === 'blocked' ? key : 'all' }),
                  }
                : {})}
            />
            <SimpleGrid cols={{ base: 1, lg: 2 }} mb="lg">
              <Paper withBorder p="md" radius="md">
                <Title order={2} size="h4" mb="sm">
                  {t('dashboard.traffic', { period: periodLabel })}
                </Title>
                <Suspense fallback={<Skeleton height={300} />}>
                  <TrafficChart
                    traffic={d.traffic}
                    daily={daily}
                    label={t(daily ? 'dashboard.trafficDailyLabel' : 'dashboard.trafficLabel', { period: periodLabel })}
                  />
                </Suspense>
              </Paper>
              <Paper withBorder p="md" radius="md">
                <Title order={2} size="h4" mb="sm">
                  {t('dashboard.history', { days: d.history.data.length })}
                </Title>
                <Suspense fallback={<Skeleton height={260} />}>
                  <HistoryChart history={d.history} label={t('dashboard.history', { days: d.history.data.length })} />
                </Suspense>
              </Paper>
            </SimpleGrid>
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
              {TOP_LISTS.map(({ dim, action }) => (
                <TopList
                  key={`${dim}_${action}`}
                  testId={`top-${dim}-${action}`}
                  title={t(`dashboard.top.${dim}_${action}`)}
                  top={
                    dim === 'categories'
                      ? namedCategories(d.top[`${dim}_${action}`], categoryName)
                      : d.top[`${dim}_${action}`]
                  }
                  action={action}
                  domains={dim === 'domains'}
                  {...(drill ? { linkFor: (item) => topLink(dim, action, period, item.key, item.name) } : {})}
                  {...(!drill && topDrill
                    ? {
                        linkFor: (item) => topDrill.linkFor({ dim, action, period, key: item.key, name: item.name }),
                        linkLabel: topDrill.label,
                        ...(topDrill.onFollow ? { onLinkClick: topDrill.onFollow } : {}),
                      }
                    : {})}
                />
              ))}
            </SimpleGrid>
          </>
        )}
      </QueryState>
    </Box>
  );
}
