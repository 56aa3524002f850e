import { type StatsBreakdown, statsEndpoints } from '@cordon/shared';
import { Alert, Anchor, Group, Paper, SegmentedControl, Stack, Text, useMatches } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { keepPreviousData } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { useEndpointQuery } from '../../api/hooks.ts';
import { useCategoryName } from '../../components/categoryName.ts';
import { type DataColumn, QueryDataTable } from '../../components/DataTable.tsx';
import { useFormat } from '../../components/format.ts';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { useUrlListState } from '../../components/urlListState.ts';
import { useMspId, useSessionStore } from '../../session/context.ts';
import {
  BREAKDOWN_ACTIONS,
  BREAKDOWN_PERIODS,
  type BreakdownAction,
  type BreakdownPeriod,
  type BreakdownState,
  breakdownLink,
  customerHistoryLink,
  MSP_BREAKDOWN_PATH,
  readBreakdownState,
  STATS_BREAKDOWN_SORT_KEYS,
  type StatsBreakdownSortKey,
} from './breakdownLinks.ts';

/** Rows per page of a breakdown. */
const PAGE_SIZE = 25;

/** Whose breakdown: an MSP's customers, or the system's MSPs. */
type BreakdownScope = { kind: 'msp'; id: number } | { kind: 'system' };
type Row = StatsBreakdown['data'][number];

/** The segmented controls' labels wrap on a phone instead of being cut off (as the dashboard's period). */
const WRAPPING = {
  control: { minWidth: 0 },
  label: {
    whiteSpace: 'normal',
    lineHeight: 1.25,
    height: '100%',
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'center',
  },
} as const;

/** `GET /msp/{id}/stats/breakdown` or `GET /stats/breakdown` for the state and page in the address. */
function useBreakdownQuery(
  scope: BreakdownScope,
  state: BreakdownState,
  page: { limit: number; offset: number; sortkey: StatsBreakdownSortKey; sortdir: 'asc' | 'desc' },
) {
  const query = {
    ...(state.target.kind === 'domain' ? { domain: state.target.domain } : { category: state.target.id }),
    action: state.action,
    date: state.period,
    ...page,
  };
  const options = { placeholderData: keepPreviousData };
  // Both hooks are called (hooks in a fixed order); the other one's query stays disabled.
  const msp = useEndpointQuery(
    statsEndpoints.mspBreakdown,
    { params: { id: scope.kind === 'msp' ? scope.id : 0 }, query },
    { ...options, enabled: scope.kind === 'msp' },
  );
  const system = useEndpointQuery(
    statsEndpoints.systemBreakdown,
    { query },
    { ...options, enabled: scope.kind === 'system' },
  );
  return scope.kind === 'msp' ? msp : system;
}

/** The breakdown of a valid state: the period and action switches, the totals and the table. */
function Breakdown({ scope, state }: { scope: BreakdownScope; state: BreakdownState }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const store = useSessionStore();
  const compact = useMatches({ base: 'xs', sm: 'sm' });
  const [, setParams] = useSearchParams();
  const categoryName = useCategoryName();
  const list = useUrlListState<StatsBreakdownSortKey>(
    { key: 'count', dir: 'desc' },
    STATS_BREAKDOWN_SORT_KEYS,
    PAGE_SIZE,
  );
  const { filter: _unused, ...page } = list.query;
  const query = useBreakdownQuery(scope, state, page);
  const target =
    state.target.kind === 'domain' ? state.target.domain : categoryName(state.target.id, state.target.name);
  usePageSubtitle(t(`breakdown.target.${state.target.kind}`, { value: target }));
  const change = (changes: Record<string, string | null>) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        for (const [k, v] of Object.entries(changes)) {
          if (v === null) next.delete(k);
          else next.set(k, v);
        }
        next.delete('page');
        return next;
      },
      { replace: true },
    );
  const who = scope.kind === 'msp' ? 'customers' : 'msps';
  const total = query.data?.count ?? 0;
  const columns: Array<DataColumn<Row, StatsBreakdownSortKey>> = [
    {
      key: 'name',
      header: t(`breakdown.column.${who}`),
      sortKey: 'name',
      render: (row) =>
        scope.kind === 'msp' ? (
          <Anchor
            component={Link}
            to={customerHistoryLink(state)}
            // The history is the selected customer's (spec-notes §4): this row's, then.
            onClick={() => store.selectCustomer(row.id)}
            aria-label={t('breakdown.openHistory', { name: row.name })}
            fw={500}
          >
            {row.name}
          </Anchor>
        ) : (
          <Anchor
            component={Link}
            to={breakdownLink(MSP_BREAKDOWN_PATH, state)}
            onClick={() => {
              store.selectMsp(row.id);
              store.selectCustomer(null);
            }}
            aria-label={t('breakdown.openCustomers', { name: row.name })}
            fw={500}
          >
            {row.name}
          </Anchor>
        ),
    },
    {
      key: 'count',
      header: t('breakdown.column.count'),
      sortKey: 'count',
      // Exact, not abbreviated: a row's count is the total its history shows.
      render: (row) => fmt.number(row.count),
      td: { ta: 'right' },
    },
    {
      key: 'share',
      header: t('breakdown.column.share'),
      render: (row) => (total > 0 ? fmt.percent(row.count / total) : '—'),
      td: { ta: 'right' },
    },
  ];
  return (
    <Stack gap="md">
      <Group gap="md" align="end" wrap="wrap">
        <SegmentedControl
          value={state.period}
          onChange={(v) => change({ period: v === 'today' ? null : v })}
          data={BREAKDOWN_PERIODS.map((p: BreakdownPeriod) => ({ value: p, label: t(`dashboard.periods.${p}`) }))}
          aria-label={t('dashboard.period')}
          size={compact}
          // Wide enough on a desktop that no period label wraps; the whole row on a phone.
          w={{ base: '100%', sm: 460 }}
          styles={WRAPPING}
        />
        <SegmentedControl
          value={state.action}
          onChange={(v) => change({ action: v === 'all' ? null : v })}
          data={BREAKDOWN_ACTIONS.map((a: BreakdownAction) => ({ value: a, label: t(`breakdown.actions.${a}`) }))}
          aria-label={t('breakdown.action')}
          size={compact}
          w={{ base: '100%', sm: 'auto' }}
          styles={WRAPPING}
        />
      </Group>
      {query.data ? (
        <Text size="sm" data-testid="breakdown-summary" aria-live="polite">
          {t(`breakdown.summary.${who}`, { count: query.data.total, queries: fmt.number(query.data.count) })}
        </Text>
      ) : null}
      <Paper withBorder p="md" radius="md">
        <QueryDataTable
          query={query}
          list={list}
          testId="breakdown-table"
          rowKey={(row) => row.id}
          minWidth={320}
          emptyText={t(`breakdown.empty.${who}`)}
          emptyTestId="breakdown-empty"
          columns={columns}
        />
      </Paper>
      <Text size="xs" c="dimmed">
        {t(scope.kind === 'msp' ? 'breakdown.zoneNote' : 'breakdown.utcNote')}
      </Text>
    </Stack>
  );
}

/** The page: back to the dashboard, then the breakdown, or what is missing from the address. */
function BreakdownPage({ scope }: { scope: BreakdownScope }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const state = readBreakdownState(params);
  const back = scope.kind === 'msp' ? '/msp/overview' : '/system/overview';
  return (
    <>
      <PageHeader />
      <Anchor
        component={Link}
        to={back}
        size="sm"
        mb="md"
        display="inline-flex"
        style={{ alignItems: 'center', gap: 4 }}
      >
        <IconArrowLeft size={14} aria-hidden />
        {t('breakdown.back')}
      </Anchor>
      {state ? (
        <Breakdown scope={scope} state={state} />
      ) : (
        <Alert color="yellow" title={t('breakdown.missingTitle')} data-testid="breakdown-missing">
          {t('breakdown.missingText')}
        </Alert>
      )}
    </>
  );
}

/**
 * `/msp/overview/breakdown?domain=|category=&action&period&page&sort&dir` (issue 29 drill-down): which
 * of the MSP's customers made the queries of a dashboard entry over the period, with their counts
 * (`GET /msp/{id}/stats/breakdown`), sorted and paged, all in the address; a customer's name selects
 * it and opens its history with the same filters.
 */
export function MspBreakdownPage() {
  const mspId = useMspId();
  return <BreakdownPage scope={{ kind: 'msp', id: mspId }} />;
}

/**
 * `/system/overview/breakdown?…` (issue 29 drill-down): which MSPs made the queries of a system
 * dashboard entry (`GET /stats/breakdown`); an MSP's name selects it and opens its customers'
 * breakdown with the same filters.
 */
export function SystemBreakdownPage() {
  return <BreakdownPage scope={{ kind: 'system' }} />;
}
