import { formatCount, REPORTS, type Report, type ReportCode, type ReportType, shortenDomain } from '@cordon/shared';
import { Button, Group, Paper, Select, Table, Text, TextInput, Title } from '@mantine/core';
import { IconDownload, IconFileTypePdf } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { saveTextFile } from '../../components/domainList/logic.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showErrorToast, showSuccessToast } from '../../components/toast.ts';
import { useCustomerId, useSessionStore } from '../../session/context.ts';
import { downloadPdf, useReportQuery } from './api.ts';
import { reportCsv, reportCsvName } from './csv.ts';
import { ReportChart } from './ReportChart.tsx';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `YYYY-MM-DD` of a local date `days` from today. */
function localDay(days: number): string {
  const d = new Date();
  d.setDate(d.getDate() + days);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function ReportTable({ report }: { report: Report }) {
  const { t } = useTranslation();
  const domains = /domain|url/.test(report.dimension);
  if (report.rows.length === 0) {
    return (
      <Text c="dimmed" data-testid="report-empty">
        {report.dimension === 'group' ? t('reports.noGroups') : t('reports.empty')}
      </Text>
    );
  }
  return (
    <Table.ScrollContainer minWidth={420}>
      <Table striped data-testid="report-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t(`reports.dimensions.${report.dimension}`)}</Table.Th>
            <Table.Th ta="right">{t('reports.requests')}</Table.Th>
            <Table.Th ta="right">{t('reports.allowed')}</Table.Th>
            <Table.Th ta="right">{t('reports.blocked')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {report.rows.map((r) => (
            <Table.Tr key={r.key}>
              <Table.Td title={r.name}>
                {report.dimension === 'hour'
                  ? new Date(r.key).toLocaleString()
                  : domains
                    ? shortenDomain(r.name)
                    : r.name}
              </Table.Td>
              <Table.Td ta="right" title={String(r.requests)}>
                {formatCount(r.requests)}
              </Table.Td>
              <Table.Td ta="right" title={String(r.allowed)}>
                {formatCount(r.allowed)}
              </Table.Td>
              <Table.Td ta="right" title={String(r.blocked)}>
                {formatCount(r.blocked)}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/**
 * A reporting page of one report type (spec §2 reporting: behavior, blocked, security, trend; spec §3
 * "Report types"): the dimension (its `r_*` code), the local days start–end (default the last 7),
 * then the report as a chart and a table, with CSV (DD-MM-YYYY name) and one-off PDF downloads.
 */
export function ReportPage({ type }: { type: ReportType }) {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const session = useSessionStore();
  const codes = REPORTS.filter((r) => r.type === type);
  const [code, setCode] = useState<ReportCode>(codes[0]!.code);
  const [start, setStart] = useState(() => localDay(-6));
  const [end, setEnd] = useState(() => localDay(0));
  const [pdfBusy, setPdfBusy] = useState(false);
  const valid = DAY.test(start) && DAY.test(end) && start <= end;
  const query = useReportQuery(customerId, code, start, end, valid);

  const pdf = async () => {
    setPdfBusy(true);
    try {
      await downloadPdf(session.getState().token, `/users/${customerId}/reports/${code}/pdf`, { start, end });
      showSuccessToast(t('reports.pdfReady'));
    } catch (err) {
      showErrorToast(err instanceof Error ? err.message : String(err));
    } finally {
      setPdfBusy(false);
    }
  };
  const csv = () => {
    if (!query.data) return;
    saveTextFile(reportCsv(query.data), reportCsvName(query.data, new Date()));
    showSuccessToast(t('reports.csvReady'));
  };

  return (
    <>
      <PageHeader
        actions={
          <Group gap="xs">
            <Button
              variant="default"
              leftSection={<IconDownload size={16} aria-hidden />}
              onClick={csv}
              disabled={!valid || !query.data}
            >
              {t('reports.csv')}
            </Button>
            <Button
              leftSection={<IconFileTypePdf size={16} aria-hidden />}
              onClick={() => void pdf()}
              loading={pdfBusy}
              disabled={!valid}
            >
              {t('reports.pdf')}
            </Button>
          </Group>
        }
      />
      <Group mb="md" align="end" wrap="wrap">
        <Select
          label={t('reports.reportType')}
          value={code}
          onChange={(v) => v && setCode(v as ReportCode)}
          data={codes.map((r) => ({ value: r.code, label: t(`reports.codes.${r.code}`) }))}
          allowDeselect={false}
          w={280}
        />
        <TextInput
          type="date"
          label={t('reports.start')}
          value={start}
          onChange={(e) => setStart(e.currentTarget.value)}
          error={DAY.test(start) ? undefined : t('reports.dateInvalid')}
          w={170}
        />
        <TextInput
          type="date"
          label={t('reports.end')}
          value={end}
          onChange={(e) => setEnd(e.currentTarget.value)}
          error={!DAY.test(end) ? t('reports.dateInvalid') : start > end ? t('reports.endBeforeStart') : undefined}
          w={170}
        />
      </Group>
      {valid ? (
        <QueryState query={query}>
          {(report) => (
            <Paper withBorder p="md" radius="md">
              <Title order={2} size="h4">
                {t(`reports.codes.${report.code}`)}
              </Title>
              <Text size="sm" c="dimmed" mb="sm" data-testid="report-period">
                {t('reports.period', { start: report.start, end: report.end, timezone: report.timezone })} ·{' '}
                {t('reports.total', { count: report.total })}
              </Text>
              {report.rows.length > 0 ? (
                <ReportChart report={report} label={t(`reports.codes.${report.code}`)} />
              ) : null}
              <ReportTable report={report} />
            </Paper>
          )}
        </QueryState>
      ) : null}
    </>
  );
}

/** `/customer/reporting/behavior_reports`. */
export function BehaviourReportsPage() {
  return <ReportPage type="behaviour" />;
}
/** `/customer/reporting/blocked_reports`. */
export function BlockedReportsPage() {
  return <ReportPage type="blocked" />;
}
/** `/customer/reporting/security_reports`. */
export function SecurityReportsPage() {
  return <ReportPage type="security" />;
}
/** `/customer/reporting/trend_reports`. */
export function TrendReportsPage() {
  return <ReportPage type="trend" />;
}
