import { Group, Switch, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListSearch, useListState } from '../../components/DataTable.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { useCustomerId } from '../../session/context.ts';
import { useHistoryQuery } from './api.ts';
import { type HistorySortKey, HistoryTable } from './HistoryTable.tsx';

/** How often the recent traffic refreshes itself, ms. */
const REFRESH_MS = 10_000;

/**
 * `/customer/recent_traffic` (spec-notes §2 Customer): today's queries, newest first, refreshed every
 * 10 s while "Live" is on; searchable and paged like the history.
 */
export function RecentTrafficPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const list = useListState<HistorySortKey>({ key: 'time', dir: 'desc' });
  const [live, setLive] = useState(true);
  const query = useHistoryQuery(
    customerId,
    'all',
    'today',
    {
      order_by: list.sort.key,
      order_dir: list.sort.dir,
      limit: list.query.limit,
      offset: list.query.offset,
      ...(list.filter ? { q: list.filter } : {}),
    },
    live ? REFRESH_MS : undefined,
  );
  return (
    <>
      <PageHeader />
      <Text c="dimmed" size="sm" mb="sm">
        {t('history.recentIntro')}
      </Text>
      <Group mb="md" justify="space-between" wrap="wrap">
        <ListSearch list={list} label={t('history.search')} wide />
        <Switch checked={live} onChange={(e) => setLive(e.currentTarget.checked)} label={t('history.live')} />
      </Group>
      <HistoryTable query={query} list={list} />
    </>
  );
}
