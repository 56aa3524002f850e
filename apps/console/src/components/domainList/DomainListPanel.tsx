import { type DomainListKind, shortenDomain } from '@cordon/shared';
import { Anchor, Button, Modal, Tabs, Text, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconDownload, IconPlus, IconUpload } from '@tabler/icons-react';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ListToolbar, QueryDataTable, useListState } from '../DataTable.tsx';
import { useFormat } from '../format.ts';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../RowSelection.tsx';
import { StatusBadge } from '../StatusBadge.tsx';
import { showSuccessToast } from '../toast.ts';
import {
  type DomainSortKey,
  useCreateDomainEntryMutation,
  useDeleteDomainEntriesMutation,
  useDomainEntriesQuery,
  useExportDomainsMutation,
  useImportDomainsMutation,
} from './api.ts';
import { DomainEntryForm } from './DomainEntryForm.tsx';
import { DomainImportForm } from './DomainImportForm.tsx';
import { DOMAIN_TABS, type DomainListOwner, entryPath, saveTextFile, targetList } from './logic.ts';

/** A yes/no cell. */
function Flag({ on }: { on: boolean }) {
  const { t } = useTranslation();
  return (
    <Text size="sm" c={on ? undefined : 'dimmed'}>
      {on ? t('common.yes') : t('common.no')}
    </Text>
  );
}

/** A domain shortened as spec-notes §9 says (25+ characters, more than two labels), the full name on hover and for screen readers. */
function DomainName({ domain, to }: { domain: string; to: string }): ReactNode {
  const short = shortenDomain(domain);
  const link = (
    <Anchor component={Link} to={to} fw={500} aria-label={short === domain ? undefined : domain}>
      {short}
    </Anchor>
  );
  return short === domain ? link : <Tooltip label={domain}>{link}</Tooltip>;
}

/**
 * A policy's or a global allow and block lists (spec-notes §7 Domains; §2 "Allowed & Blocked Domains"):
 * tabs Allowed / Blocked / All, a table with paging, sort and search (spec-notes §9; long domains
 * shortened), "Add domain" (spec-notes §5 message for URLs), multi-delete as one `/batch` after a
 * confirmation, CSV import (multipart `csv`, optionally replacing the list after a confirmation)
 * and CSV export named as the server names it (DD-MM-YYYY). Each domain links to its entry page,
 * where it is edited or deleted. `area` is the console area the view is in (entry links).
 */
export function DomainListPanel({ owner, area }: { owner: DomainListOwner; area: 'customer' | 'msp' | 'system' }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [kind, setKind] = useState<DomainListKind>('allow');
  const list = useListState<DomainSortKey>({ key: 'name', dir: 'asc' });
  const [adding, { open: openAdd, close: closeAdd }] = useDisclosure(false);
  const [importing, { open: openImport, close: closeImport }] = useDisclosure(false);
  const entries = useDomainEntriesQuery(owner, kind, list.query);
  const rows = entries.data?.data ?? [];
  const selection = useRowSelection(rows.map((e) => e.id));
  const create = useCreateDomainEntryMutation(owner);
  const remove = useDeleteDomainEntriesMutation(owner);
  const importer = useImportDomainsMutation(owner);
  const exporter = useExportDomainsMutation(owner);
  const toastResult = useMultiDeleteToasts();

  const onTab = (value: string | null) => {
    const next = DOMAIN_TABS.find((tab) => tab.kind === value);
    if (!next) return;
    setKind(next.kind);
    list.setPage(1);
    selection.clear();
  };
  const onDelete = async () => {
    const names = new Map(rows.map((e) => [String(e.id), e.domain]));
    const outcome = await remove.run(selection.selected);
    toastResult({
      deleted: outcome.succeeded.length,
      failed: outcome.failed.map((f) => ({ name: names.get(f.id) ?? f.id, error: f.error })),
    });
    selection.clear();
    list.afterDelete(outcome.succeeded.length, rows.length);
  };
  const onExport = () =>
    exporter.mutate(kind, {
      onSuccess: ({ text, fileName }) => {
        saveTextFile(text, fileName);
        showSuccessToast(t('domainList.exported', { file: fileName }));
      },
    });

  return (
    <>
      <Tabs value={kind} onChange={onTab} keepMounted={false}>
        <Tabs.List mb="md">
          {DOMAIN_TABS.map((tab) => (
            <Tabs.Tab key={tab.kind} value={tab.kind}>
              {t(tab.labelKey)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <ListToolbar
        list={list}
        searchLabel={t('domainList.search')}
        actions={
          <>
            <Button leftSection={<IconPlus size={16} />} onClick={openAdd}>
              {t('domainList.add')}
            </Button>
            <Button variant="default" leftSection={<IconUpload size={16} />} onClick={openImport}>
              {t('domainList.import')}
            </Button>
            <Button
              variant="default"
              leftSection={<IconDownload size={16} />}
              onClick={onExport}
              loading={exporter.isPending}
            >
              {t('domainList.export')}
            </Button>
            <DeleteSelectedButton
              count={selection.selected.length}
              loading={remove.isPending}
              onConfirm={onDelete}
              items={rows.filter((e) => selection.selected.includes(e.id)).map((e) => ({ id: e.id, name: e.domain }))}
              kind={`domains_${kind}`}
            />
          </>
        }
      />
      <QueryDataTable
        query={entries}
        list={list}
        testId="domains-table"
        emptyTestId="domains-empty"
        emptyText={list.filter ? t('domainList.noMatch') : t('domainList.empty')}
        minWidth={640}
        rowKey={(e) => e.id}
        select={{ selection, rowId: (e) => e.id, rowName: (e) => e.domain }}
        columns={[
          {
            key: 'domain',
            header: t('domainList.domain'),
            sortKey: 'name',
            render: (e) => <DomainName domain={e.domain} to={entryPath(owner, e.id, area)} />,
          },
          kind === 'all' && {
            key: 'list',
            header: t('domainList.list'),
            sortKey: 'object',
            render: (e) => <StatusBadge status={e.object === 'allow' ? 'allowed' : 'blocked'} />,
          },
          { key: 'subdomains', header: t('domainList.subdomains'), render: (e) => <Flag on={e.include_subdomains} /> },
          { key: 'log', header: t('domainList.logRequests'), render: (e) => <Flag on={e.log_requests} /> },
          {
            key: 'comment',
            header: t('domainList.comment'),
            td: { maw: 240 },
            render: (e) => (
              <Text size="sm" truncate="end" title={e.comment}>
                {e.comment}
              </Text>
            ),
          },
          {
            key: 'updated',
            header: t('domainList.updated'),
            sortKey: 'updated_at',
            render: (e) => (
              <Text size="sm" c="dimmed">
                {fmt.date(e.updated_at)}
              </Text>
            ),
          },
        ]}
      />
      <Modal opened={adding} onClose={closeAdd} title={t('domainList.add')} size="lg">
        <DomainEntryForm
          entry={null}
          list={targetList(kind)}
          pending={create.isPending}
          onCancel={closeAdd}
          submit={(list, body) =>
            create.mutateAsync({ list, body }).then(() => {
              showSuccessToast(t('domainList.added', { domain: body.domain }));
              closeAdd();
            })
          }
        />
      </Modal>
      <Modal opened={importing} onClose={closeImport} title={t('domainList.importTitle')} size="lg">
        <DomainImportForm
          list={targetList(kind)}
          pending={importer.isPending}
          run={(input) => importer.mutateAsync(input)}
          onCancel={closeImport}
          onDone={(r) => {
            showSuccessToast(
              t('domainList.imported', { imported: r.imported, skipped: r.skipped, removed: r.removed }),
            );
            closeImport();
          }}
        />
      </Modal>
    </>
  );
}
