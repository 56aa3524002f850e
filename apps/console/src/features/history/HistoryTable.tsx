import type { HistoryEntry } from '@cordon/shared';
import { Stack, Text } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useCategoryName } from '../../components/categoryName.ts';
import { type DataColumn, type ListState, QueryDataTable } from '../../components/DataTable.tsx';
import { HistoryPolicy } from '../../components/EffectivePolicyPanel.tsx';
import { formatLogTime } from '../../components/format.ts';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { HistoryTimeout, isQueryTimeout } from './timeout.tsx';

/** The history's sort keys (the API's `order_by`). */
export type HistorySortKey = 'time' | 'qname' | 'qtype' | 'client_ip' | 'action' | 'reason';

/**
 * A row's action: the status badge (else the action's name) and, when the decision was made on a
 * name the upstream answer leads to rather than on the qname (a CNAME/DNAME chain or an HTTPS/SVCB
 * target: docs/api.md "History"), "via" that name below it, e.g. Blocked via cname-target.example
 * beside the category that decided.
 */
export function HistoryAction({ entry }: { entry: Pick<HistoryEntry, 'action' | 'matched_name'> }) {
  const { t } = useTranslation();
  const action =
    entry.action === 'blocked' || entry.action === 'allowed' ? (
      <StatusBadge status={entry.action} size="sm" />
    ) : (
      <Text size="sm">{t(`history.actions.${entry.action}`, { defaultValue: entry.action })}</Text>
    );
  if (!entry.matched_name) return action;
  return (
    <Stack gap={2} align="flex-start">
      {action}
      <Text size="xs" style={{ overflowWrap: 'anywhere' }} title={t('history.viaTitle', { name: entry.matched_name })}>
        {t('history.via', { name: entry.matched_name })}
      </Text>
    </Stack>
  );
}

/**
 * The logged queries: time (the admin's time zone and language), qname, qtype, action (with the
 * answer's name that decided it, if not the qname), the policy in force (a link), categories, client,
 * who asked (the user, else the device; the group in its title), location. A search the server stopped at its time bound
 * (`ERR_QUERY_TIMEOUT`) shows {@link HistoryTimeout} instead.
 */
export function HistoryTable({
  query,
  list,
}: {
  query: UseQueryResult<{ total: number; data: HistoryEntry[] }>;
  list: ListState<HistorySortKey>;
}) {
  const { t, i18n } = useTranslation();
  const categoryName = useCategoryName();
  const columns: DataColumn<HistoryEntry, HistorySortKey>[] = [
    { key: 'time', header: t('history.time'), sortKey: 'time', render: (r) => formatLogTime(r.time, i18n.language) },
    {
      key: 'qname',
      header: t('history.qname'),
      sortKey: 'qname',
      // The search page shows whole names (wrapped): shortened ones (spec-notes §9, for charts and top
      // lists) would make sibling subdomains look alike here.
      render: (r) => (
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {r.qname}
        </Text>
      ),
    },
    { key: 'qtype', header: t('history.qtype'), sortKey: 'qtype', render: (r) => r.qtype },
    {
      key: 'action',
      header: t('history.action'),
      sortKey: 'action',
      render: (r) => <HistoryAction entry={r} />,
    },
    {
      key: 'policy',
      header: t('effectivePolicy.historyColumn'),
      render: (r) => <HistoryPolicy policyId={r.policy_id} />,
    },
    {
      key: 'categories',
      header: t('history.categories'),
      render: (r) => r.categories.map((c) => categoryName(c.id, c.name)).join(', '),
    },
    { key: 'client_ip', header: t('history.client'), sortKey: 'client_ip', render: (r) => r.client_ip },
    {
      key: 'who',
      header: t('history.who'),
      render: (r) => (
        <Text size="sm" title={r.group ? t('history.group', { group: r.group }) : undefined}>
          {r.user ?? r.device ?? ''}
        </Text>
      ),
    },
    { key: 'location', header: t('history.location'), render: (r) => r.location ?? '' },
  ];
  // A search the server stopped at its time bound: say so in the admin's language, and how to narrow it.
  if (query.isError && isQueryTimeout(query.error)) return <HistoryTimeout onRetry={() => void query.refetch()} />;
  return (
    <QueryDataTable
      query={query}
      columns={columns}
      rowKey={(r) => r.id}
      list={list}
      minWidth={920}
      testId="history-table"
      emptyText={t('history.empty')}
    />
  );
}
