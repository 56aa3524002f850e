import { type AuditEntry, ddmmyyyy } from '@cordon/shared';
import { Button, Code, Group, Select, Stack, Text } from '@mantine/core';
import { IconChevronDown, IconChevronUp, IconDownload } from '@tabler/icons-react';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListToolbar, QueryDataTable, useListState } from '../../components/DataTable.tsx';
import { useFormat } from '../../components/format.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { saveFile } from '../../components/saveFile.ts';
import { showErrorToast } from '../../components/toast.ts';
import { useMspId } from '../../session/context.ts';
import { type AuditSortKey, useAuditExport, useAuditQuery } from './api.ts';
import { type AuditT, describeAudit } from './auditPhrase.ts';

/** The action groups offered in the filter (an action prefix; '' = everything). */
const ACTION_GROUPS = ['', 'auth.', 'admin.', 'mail.', 'msp.', 'customer.', 'policy.', 'location.'] as const;

/** The export's file name with the date as DD-MM-YYYY (spec-notes §9). */
function exportName(now: Date): string {
  return `audit-${ddmmyyyy(now)}.csv`;
}

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

/** JSON text pretty-printed when it parses, else as written. */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * A row in words (issue 29; {@link describeAudit}), with the recorded detail — action code, object,
 * before and after as stored — one click away.
 */
function AuditSentence({ entry }: { entry: AuditEntry }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const id = useId();
  const say = t as unknown as AuditT;
  return (
    <div>
      <Group gap={4} wrap="wrap" align="flex-start">
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {describeAudit(entry, auditActor(entry, say), say)}
        </Text>
        <Button
          size="compact-xs"
          variant="subtle"
          aria-expanded={open}
          aria-controls={id}
          onClick={() => setOpen((o) => !o)}
          leftSection={open ? <IconChevronUp size={14} aria-hidden /> : <IconChevronDown size={14} aria-hidden />}
          title={open ? t('audit.hideDetails') : t('audit.showDetails')}
          style={{ flexShrink: 0 }}
        >
          {t('audit.details')}
        </Button>
      </Group>
      {open ? (
        <Stack id={id} gap={4} mt={4}>
          <Text size="xs">
            <Code>{entry.action}</Code> ·{' '}
            {entry.entity_id === null ? entry.entity : `${entry.entity} #${entry.entity_id}`}
          </Text>
          {entry.before ? (
            <div>
              <Text size="xs" fw={600}>
                {t('audit.before')}
              </Text>
              <Code block style={{ maxWidth: '100%', overflowX: 'auto' }}>
                {pretty(entry.before)}
              </Code>
            </div>
          ) : null}
          {entry.after ? (
            <div>
              <Text size="xs" fw={600}>
                {t('audit.after')}
              </Text>
              <Code block style={{ maxWidth: '100%', overflowX: 'auto' }}>
                {pretty(entry.after)}
              </Code>
            </div>
          ) : null}
        </Stack>
      ) : (
        <span id={id} hidden />
      )}
    </div>
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
      saveFile(await exportCsv({ ...rest, ...scope }), exportName(new Date()), 'text/csv');
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
          {
            key: 'action',
            header: t('audit.whatHappened'),
            sortKey: 'action',
            render: (r) => <AuditSentence entry={r} />,
            // The sentence stays readable on a phone: the table scrolls sideways instead.
            td: { miw: 260 },
          },
          { key: 'ip', header: t('audit.clientIp'), render: (r) => r.client_ip ?? '' },
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
