import {
  Constants,
  ddmmyyyy,
  HISTORY_LIMIT,
  HISTORY_ORDER_BY,
  type HistoryEntry,
  historyEndpoints,
} from '@cordon/shared';
import { Button, CloseButton, Group, Pill, Select, Text, TextInput } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useApi } from '../../api/context.ts';
import { useCategoryName } from '../../components/categoryName.ts';
import { ListSearch } from '../../components/DataTable.tsx';
import { saveTextFile } from '../../components/domainList/logic.ts';
import {
  type DrillValue,
  drillQuery,
  HISTORY_ACTIONS,
  HISTORY_PERIODS,
  type HistoryPeriod,
  readDrillFilters,
} from '../../components/historyLinks.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { showErrorToast, showSuccessToast } from '../../components/toast.ts';
import { useUrlListState } from '../../components/urlListState.ts';
import { useCustomerId } from '../../session/context.ts';
import { type HistoryAction, useHistoryQuery } from './api.ts';
import { historyCsv } from './csv.ts';
import { type HistorySortKey, HistoryTable } from './HistoryTable.tsx';
import { isQueryTimeout } from './timeout.tsx';

const PERIODS = HISTORY_PERIODS;
type Period = HistoryPeriod;

/** The exact filters on screen (issue 29 drill-down), each with a button that removes it. */
function DrillFilters({ filters, onRemove }: { filters: readonly DrillValue[]; onRemove: (f: DrillValue) => void }) {
  const { t } = useTranslation();
  if (filters.length === 0) return null;
  return (
    <Group gap="xs" mb="md" data-testid="history-filters" role="group" aria-label={t('history.drill.label')}>
      <Text size="sm" c="dimmed">
        {t('history.drill.narrowedTo')}
      </Text>
      {filters.map((f) => (
        <Pill key={f.key} size="lg" data-testid={`history-filter-${f.key}`}>
          <Group gap={4} wrap="nowrap">
            <span>{t(`history.drill.${f.key}`, { value: f.label })}</span>
            <CloseButton
              size="xs"
              aria-label={t('history.drill.remove', { filter: t(`history.drill.${f.key}`, { value: f.label }) })}
              onClick={() => onRemove(f)}
            />
          </Group>
        </Pill>
      ))}
    </Group>
  );
}

/**
 * `/customer/reporting/history_reports` (spec-notes §2 reporting: history; spec-notes §7 history): the query-log
 * search with action, period (or one day) and text filters, sortable columns, paging (spec-notes §9 page
 * size) and a CSV export of up to 1000 matching rows (spec-notes §9: history limit 1000, file name
 * DD-MM-YYYY). Every filter, the exact ones of the dashboards' drill-down included, lives in the
 * address (issue 29): `action`, `period`, `day`, `q`, `sort`, `dir`, `page`, `domain`, `category`…
 */
export function HistoryPage() {
  const { t } = useTranslation();
  const categoryName = useCategoryName();
  const api = useApi();
  const customerId = useCustomerId();
  const list = useUrlListState<HistorySortKey>(
    { key: 'time', dir: 'desc' },
    HISTORY_ORDER_BY,
    Constants.defaultPageSize,
  );
  const [params, setParams] = useSearchParams();
  const setParam = (changes: Record<string, string | null>) =>
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
  const rawAction = params.get('action') as HistoryAction | null;
  const action: HistoryAction = rawAction && HISTORY_ACTIONS.includes(rawAction) ? rawAction : 'all';
  const rawPeriod = params.get('period') as Period | null;
  const period: Period = rawPeriod && PERIODS.includes(rawPeriod) ? rawPeriod : 'today';
  const day = params.get('day') ?? new Date().toISOString().slice(0, 10);
  const setAction = (a: HistoryAction) => setParam({ action: a === 'all' ? null : a });
  const setPeriod = (p: Period) => setParam({ period: p === 'today' ? null : p });
  const setDay = (d: string) => setParam({ day: d });
  const filters = readDrillFilters(params);
  const [exporting, setExporting] = useState(false);
  const date = period === 'day' ? day : period;
  const validDate = period !== 'day' || /^\d{4}-\d{2}-\d{2}$/.test(day);
  const base = {
    order_by: list.sort.key,
    order_dir: list.sort.dir,
    ...(list.filter ? { q: list.filter } : {}),
    ...drillQuery(filters),
  };
  const query = useHistoryQuery(customerId, action, validDate ? date : 'today', {
    ...base,
    limit: list.query.limit,
    offset: list.query.offset,
  });

  const exportCsv = async () => {
    setExporting(true);
    try {
      const page = await api.call(historyEndpoints.search, {
        params: { id: customerId, action, date },
        query: { ...base, limit: HISTORY_LIMIT, offset: 0 },
      });
      saveTextFile(historyCsv(page.data as HistoryEntry[], categoryName), `history-${ddmmyyyy(new Date())}.csv`);
      showSuccessToast(t('history.exported', { count: page.data.length }));
    } catch (err) {
      showErrorToast(isQueryTimeout(err) ? t('history.timeoutText') : err instanceof Error ? err.message : String(err));
    } finally {
      setExporting(false);
    }
  };

  return (
    <>
      <PageHeader
        actions={
          <Button
            leftSection={<IconDownload size={16} aria-hidden />}
            variant="default"
            onClick={() => void exportCsv()}
            loading={exporting}
            disabled={!validDate}
          >
            {t('history.exportCsv')}
          </Button>
        }
      />
      <Group mb="md" align="end" wrap="wrap">
        <Select
          label={t('history.action')}
          value={action}
          onChange={(v) => {
            setAction((v as HistoryAction) ?? 'all');
          }}
          data={(['all', 'allowed', 'blocked'] as const).map((a) => ({ value: a, label: t(`history.filter.${a}`) }))}
          allowDeselect={false}
          w={160}
        />
        <Select
          label={t('history.period')}
          value={period}
          onChange={(v) => {
            setPeriod((v as Period) ?? 'today');
          }}
          data={PERIODS.map((p) => ({ value: p, label: t(`history.periods.${p}`) }))}
          allowDeselect={false}
          w={180}
        />
        {period === 'day' ? (
          <TextInput
            type="date"
            label={t('history.day')}
            value={day}
            onChange={(e) => {
              setDay(e.currentTarget.value);
            }}
            error={validDate ? undefined : t('history.dayInvalid')}
            w={180}
          />
        ) : null}
        <ListSearch list={list} label={t('history.search')} wide />
      </Group>
      <DrillFilters filters={filters} onRemove={(f) => setParam({ [f.key]: null, [`${f.key}_name`]: null })} />
      <HistoryTable query={query} list={list} />
    </>
  );
}
