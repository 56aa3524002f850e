import { Constants, pageOffset, type ScheduledReport } from '@cordon/shared';
import { ActionIcon, Button, Group, Modal, Text, Title, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconDownload, IconPencil, IconPlayerPlay, IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { useFormat } from '../../components/format.ts';
import { ListPagination } from '../../components/ListPagination.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { showErrorToast, showSuccessToast } from '../../components/toast.ts';
import { useCustomerId, useSessionStore } from '../../session/context.ts';
import {
  downloadPdf,
  useArchiveQuery,
  useDeleteScheduledReportMutation,
  usePowerBiConfigQuery,
  useRunScheduledReportMutation,
  useScheduledReportsQuery,
} from './api.ts';
import { ScheduledReportCreateForm, ScheduledReportEditForm } from './ScheduledReportForm.tsx';

const page = (n: number) => ({ limit: Constants.defaultPageSize, offset: pageOffset(Constants.defaultPageSize, n) });

/** The last outcome of a schedule: `sent` or `report not sent` with the reason in the tooltip (spec-notes §4). */
function StatusCell({ status, reason }: { status: string | null; reason: string | null }) {
  const { t } = useTranslation();
  if (status === null) return <Text c="dimmed">{t('reports.neverSent')}</Text>;
  const badge = <StatusBadge status={status === 'sent' ? 'sent' : 'reportNotSent'} size="sm" />;
  return reason ? (
    <Tooltip label={reason} multiline w={280}>
      <span>
        {badge}
        <Text size="xs" c="dimmed" lineClamp={2}>
          {reason}
        </Text>
      </span>
    </Tooltip>
  ) : (
    badge
  );
}

function RowActions({ customerId, report }: { customerId: number; report: ScheduledReport }) {
  const { t } = useTranslation();
  const [editing, edit] = useDisclosure(false);
  const [confirming, confirm] = useDisclosure(false);
  const run = useRunScheduledReportMutation(customerId, report.id);
  const format = useFormat();
  const remove = useDeleteScheduledReportMutation(customerId, report.id);
  return (
    <Group gap={4} wrap="nowrap">
      <ActionIcon
        variant="subtle"
        aria-label={t('reports.runNow', { name: report.name })}
        loading={run.isPending}
        onClick={() =>
          run.mutate(undefined, {
            onSuccess: (r) => {
              // Which days the report covered: its last full period, not the day so far.
              const period =
                r.period_start === r.period_end
                  ? format.day(r.period_start)
                  : `${format.day(r.period_start)} – ${format.day(r.period_end)}`;
              if (r.status === 'sent') showSuccessToast(t('reports.runSent', { period }));
              else showErrorToast(t('reports.runNotSent', { period, reason: r.reason ?? '' }));
            },
          })
        }
      >
        <IconPlayerPlay size={16} />
      </ActionIcon>
      <ActionIcon variant="subtle" aria-label={t('reports.edit', { name: report.name })} onClick={edit.open}>
        <IconPencil size={16} />
      </ActionIcon>
      <ActionIcon
        variant="subtle"
        color="red"
        aria-label={t('reports.delete', { name: report.name })}
        onClick={confirm.open}
      >
        <IconTrash size={16} />
      </ActionIcon>
      <Modal opened={editing} onClose={edit.close} title={t('reports.editTitle')} size="lg">
        <ScheduledReportEditForm customerId={customerId} report={report} onDone={edit.close} />
      </Modal>
      <ConfirmDialog
        opened={confirming}
        onClose={confirm.close}
        title={t('reports.deleteTitle')}
        text={t('reports.deleteText', { name: report.name })}
        confirmLabel={t('common.delete')}
        loading={remove.isPending}
        // mutateAsync, not mutate's onSuccess: the refetch removes this row (and its callbacks) first.
        onConfirm={() => remove.mutateAsync(undefined).then(() => showSuccessToast(t('reports.deleted')))}
      />
    </Group>
  );
}

/**
 * `/customer/reporting/summary` (spec-notes §2 reporting: summary): the scheduled reports (spec-notes §3: name,
 * type, frequency, recipients, sent date, status) with create, edit, run now and delete, and the
 * archive of the PDFs sent in the last 6 months (spec-notes §9) to download.
 */
export function SummaryPage() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const customerId = useCustomerId();
  const session = useSessionStore();
  const [schedPage, setSchedPage] = useState(1);
  const [archPage, setArchPage] = useState(1);
  const [creating, create] = useDisclosure(false);
  const scheduled = useScheduledReportsQuery(customerId, page(schedPage));
  const archive = useArchiveQuery(customerId, page(archPage));
  const powerBi = usePowerBiConfigQuery();
  return (
    <>
      <PageHeader
        actions={
          <Group gap="xs">
            {powerBi.data?.configured && powerBi.data.embed_url ? (
              <Button
                component="a"
                variant="default"
                href={powerBi.data.embed_url}
                target="_blank"
                rel="noopener noreferrer"
              >
                {t('reports.powerBi')}
              </Button>
            ) : null}
            <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={create.open}>
              {t('reports.newScheduled')}
            </Button>
          </Group>
        }
      />
      <Title order={2} size="h4" mb="sm">
        {t('reports.scheduled')}
      </Title>
      <QueryState query={scheduled}>
        {(list) => (
          <>
            <DataTable
              rows={list.data}
              rowKey={(r) => r.id}
              testId="scheduled-reports"
              minWidth={760}
              emptyText={t('reports.noScheduled')}
              columns={[
                { key: 'name', header: t('reports.name'), render: (r) => r.name },
                {
                  key: 'type',
                  header: t('reports.reportType'),
                  render: (r) => t(`reports.codes.${r.type}`, { defaultValue: r.type }),
                },
                {
                  key: 'frequency',
                  header: t('reports.frequency'),
                  render: (r) => t(`reports.frequencies.${r.frequency}`),
                },
                { key: 'recipients', header: t('reports.recipients'), render: (r) => r.recipients.join(', ') },
                {
                  key: 'sent',
                  header: t('reports.sentDate'),
                  render: (r) => (r.sent_date ? fmt.dateTime(r.sent_date) : '—'),
                },
                {
                  key: 'status',
                  header: t('reports.status'),
                  // Room for the whole "Report not sent" label: a narrower cell cuts the badge.
                  w: 170,
                  render: (r) => <StatusCell status={r.status} reason={r.reason} />,
                },
                {
                  key: 'actions',
                  header: t('reports.actions'),
                  render: (r) => <RowActions customerId={customerId} report={r} />,
                },
              ]}
            />
            <ListPagination total={list.total} page={schedPage} onChange={setSchedPage} />
          </>
        )}
      </QueryState>
      <Title order={2} size="h4" mt="xl" mb="sm">
        {t('reports.archive')}
      </Title>
      <QueryState query={archive}>
        {(list) => (
          <>
            <DataTable
              rows={list.data}
              rowKey={(r) => r.id}
              testId="report-archive"
              minWidth={700}
              emptyText={t('reports.noArchive')}
              columns={[
                {
                  key: 'created',
                  header: t('reports.createdAt'),
                  render: (r) => fmt.dateTime(r.created_at),
                },
                { key: 'name', header: t('reports.name'), render: (r) => r.name },
                { key: 'period', header: t('reports.periodColumn'), render: (r) => `${r.start} – ${r.end}` },
                {
                  key: 'status',
                  header: t('reports.status'),
                  // Room for the whole "Report not sent" label: a narrower cell cuts the badge.
                  w: 170,
                  render: (r) => <StatusCell status={r.status} reason={r.reason} />,
                },
                {
                  key: 'pdf',
                  header: t('reports.pdf'),
                  render: (r) =>
                    r.size > 0 ? (
                      <ActionIcon
                        variant="subtle"
                        aria-label={t('reports.downloadArchived', { name: r.name, start: r.start })}
                        onClick={() =>
                          void downloadPdf(
                            session.getState().token,
                            `/users/${customerId}/reports/archive/${r.id}/pdf`,
                          ).catch((err: Error) => showErrorToast(err.message))
                        }
                      >
                        <IconDownload size={16} />
                      </ActionIcon>
                    ) : (
                      '—'
                    ),
                },
              ]}
            />
            <ListPagination total={list.total} page={archPage} onChange={setArchPage} />
          </>
        )}
      </QueryState>
      <Modal opened={creating} onClose={create.close} title={t('reports.newScheduled')} size="lg">
        <ScheduledReportCreateForm customerId={customerId} onDone={create.close} />
      </Modal>
    </>
  );
}
