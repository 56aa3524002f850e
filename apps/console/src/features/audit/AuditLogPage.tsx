import { type AuditEntry, ddmmyyyy } from '@cordon/shared';
import { Button, Code, Group, Select, Text, Tooltip } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListToolbar, QueryDataTable, useListState } from '../../components/DataTable.tsx';
import { useFormat } from '../../components/format.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { showErrorToast } from '../../components/toast.ts';
import { useMspId } from '../../session/context.ts';
import { type AuditSortKey, useAuditExport, useAuditQuery } from './api.ts';

/** The action groups offered in the filter (an action prefix; '' = everything). */
const ACTION_GROUPS = ['', 'auth.', 'admin.', 'mail.', 'msp.', 'customer.', 'policy.', 'location.'] as const;

/** The export's file name with the date as DD-MM-YYYY (spec §9). */
function exportName(now: Date): string {
  return `audit-${ddmmyyyy(now)}.csv`;
}

/** Offers `text` as a CSV download. */
function download(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
}

/** The before/after of a row, short, with the whole JSON in a tooltip. */
/**
 * Who made an audit row's change: the admin's e-mail, the API token it was made with (docs/api.md
 * "API tokens") with its admin, or the operator for a server command.
 */
export function auditActor(
  entry: Pick<AuditEntry, 'admin_email' | 'api_token_name'>,
  t: (key: string, values?: Record<string, string>) => string,
): string {
  if (entry.admin_email === null) return t('audit.operator');
  if (entry.api_token_name) return t('audit.viaToken', { name: entry.api_token_name, email: entry.admin_email });
  return entry.admin_email;
}

function Change({ entry }: { entry: AuditEntry }) {
  const text = entry.after ?? entry.before;
  if (!text) return null;
  return (
    <Tooltip label={<Code block>{text}</Code>} multiline w={420} withinPortal>
      <Text size="xs" c="dimmed" lineClamp={1} maw={260} tabIndex={0}>
        {text}
      </Text>
    </Tooltip>
  );
}

/**
 * The audit log (docs/security.md "Accounts"): who did what, when, from where — every change, and
 * logins, failed logins, 2FA changes and password resets; newest first, with paging, search, an
 * action filter and CSV export of the current search.
 */
function AuditLog({ mspId }: { mspId?: number }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const list = useListState<AuditSortKey>({ key: 'at', dir: 'desc' });
  const [action, setAction] = useState('');
  const scope = { ...(mspId === undefined ? {} : { mspId }), action };
  const rows = useAuditQuery({ ...list.query, ...scope });
  const exportCsv = useAuditExport();
  const [exporting, setExporting] = useState(false);
  const onExport = async () => {
    setExporting(true);
    try {
      const { limit: _l, offset: _o, ...rest } = list.query;
      download(await exportCsv({ ...rest, ...scope }), exportName(new Date()));
    } catch {
      showErrorToast(t('audit.exportFailed'));
    } finally {
      setExporting(false);
    }
  };
  return (
    <>
      <PageHeader
        actions={
          <Button
            variant="light"
            leftSection={<IconDownload size={16} aria-hidden />}
            loading={exporting}
            onClick={onExport}
          >
            {t('audit.export')}
          </Button>
        }
      />
      <ListToolbar
        list={list}
        actions={
          <Group>
            <Select
              aria-label={t('audit.actionFilter')}
              placeholder={t('audit.actionFilter')}
              value={action}
              allowDeselect={false}
              w={200}
              data={ACTION_GROUPS.map((g) => ({
                value: g,
                label: t(`audit.groups.${g === '' ? 'all' : g.slice(0, -1)}`),
              }))}
              onChange={(v) => {
                setAction(v ?? '');
                list.setPage(1);
              }}
            />
          </Group>
        }
      />
      <QueryDataTable
        query={rows}
        list={list}
        testId="audit-table"
        rowKey={(r) => r.id}
        columns={[
          { key: 'at', header: t('audit.at'), sortKey: 'at', render: (r) => fmt.dateTime(r.at) },
          {
            key: 'who',
            header: t('audit.who'),
            sortKey: 'admin_email',
            render: (r) => auditActor(r, t),
          },
          { key: 'action', header: t('audit.action'), sortKey: 'action', render: (r) => <Code>{r.action}</Code> },
          {
            key: 'entity',
            header: t('audit.entity'),
            render: (r) => (r.entity_id === null ? r.entity : `${r.entity} #${r.entity_id}`),
          },
          { key: 'ip', header: t('audit.clientIp'), render: (r) => r.client_ip ?? '' },
          { key: 'change', header: t('audit.change'), render: (r) => <Change entry={r} /> },
        ]}
      />
    </>
  );
}

/** `/system/global_settings/audit_log`: every audit row. */
export function SystemAuditLogPage() {
  return <AuditLog />;
}

/** `/msp/global_settings/audit_log`: the MSP's rows and its customers'. */
export function MspAuditLogPage() {
  return <AuditLog mspId={useMspId()} />;
}
