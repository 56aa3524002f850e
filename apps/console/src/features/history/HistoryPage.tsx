import { ddmmyyyy, Endpoints, HISTORY_LIMIT, type HistoryEntry } from '@cordon/shared';
import { Button, Group, Select, TextInput } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useApi } from '../../api/context.ts';
import { ListSearch, useListState } from '../../components/DataTable.tsx';
import { saveTextFile } from '../../components/domainList/logic.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { showErrorToast, showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import { type HistoryAction, useHistoryQuery } from './api.ts';
import { historyCsv } from './csv.ts';
import { type HistorySortKey, HistoryTable } from './HistoryTable.tsx';
import { isQueryTimeout } from './timeout.tsx';

const PERIODS = ['today', 'yesterday', '7days', '30days', 'day'] as const;
type Period = (typeof PERIODS)[number];

/**
 * `/customer/reporting/history_reports` (spec-notes §2 reporting: history; spec-notes §7 history): the query-log
 * search with action, period (or one day) and text filters, sortable columns, paging (spec-notes §9 page
 * size) and a CSV export of up to 1000 matching rows (spec-notes §9: history limit 1000, file name
 * DD-MM-YYYY).
 */
export function HistoryPage() {
  const { t } = useTranslation();
  const api = useApi();
  const customerId = useCustomerId();
  const list = useListState<HistorySortKey>({ key: 'time', dir: 'desc' });
  const [action, setAction] = useState<HistoryAction>('all');
  const [period, setPeriod] = useState<Period>('today');
  const [day, setDay] = useState(() => new Date().toISOString().slice(0, 10));
  const [exporting, setExporting] = useState(false);
  const date = period === 'day' ? day : period;
  const validDate = period !== 'day' || /^\d{4}-\d{2}-\d{2}$/.test(day);
  const base = {
    order_by: list.sort.key,
    order_dir: list.sort.dir,
    ...(list.filter ? { q: list.filter } : {}),
  };
  const query = useHistoryQuery(customerId, action, validDate ? date : 'today', {
    ...base,
    limit: list.query.limit,
    offset: list.query.offset,
  });

  const exportCsv = async () => {
    setExporting(true);
    try {
      const page = await api.call(Endpoints.history.search, {
        params: { id: customerId, action, date },
        query: { ...base, limit: HISTORY_LIMIT, offset: 0 },
      });
      saveTextFile(historyCsv(page.data as HistoryEntry[]), `history-${ddmmyyyy(new Date())}.csv`);
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
            list.setPage(1);
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
            list.setPage(1);
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
              list.setPage(1);
            }}
            error={validDate ? undefined : t('history.dayInvalid')}
            w={180}
          />
        ) : null}
        <ListSearch list={list} label={t('history.search')} wide />
      </Group>
      <HistoryTable query={query} list={list} />
    </>
  );
}
