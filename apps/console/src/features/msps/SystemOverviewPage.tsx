import { Button } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { ListToolbar, useListState } from '../../components/DataTable.tsx';
import { DeferredModal } from '../../components/Deferred.tsx';
import { Dashboard } from '../../components/dashboard/Dashboard.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../../components/RowSelection.tsx';
import { useSession, useSessionStore } from '../../session/context.ts';
import { type MspSortKey, useDeleteMspsMutation, useMspDependantsFetcher, useMspsQuery } from './api.ts';
import { SYSTEM_BREAKDOWN_PATH, topEntryBreakdownLink } from './breakdownLinks.ts';
import { MspsTable } from './MspsTable.tsx';

// The form loads when "New MSP" is clicked, not with the overview: issue 28's first-load budget
// (bench/README.md "Console first load").
const MspCreateForm = lazy(() => import('./MspCreateForm.tsx').then((m) => ({ default: m.MspCreateForm })));

/**
 * `/system/overview` (spec-notes §2): the system dashboard and the MSPs with search, sort and paging
 * (spec-notes §9), "New MSP", and "Delete selected" as one `/batch` after a confirmation. An MSP's name
 * selects it (spec-notes §4) and opens the MSP area; its details button opens its id page; a deleted
 * selected MSP is deselected.
 */
export function SystemOverviewPage() {
  const { t } = useTranslation();
  const store = useSessionStore();
  const session = useSession();
  const list = useListState<MspSortKey>({ key: 'name', dir: 'asc' });
  const [opened, { open, close }] = useDisclosure(false);
  const msps = useMspsQuery(list.query);
  const rows = msps.data?.data ?? [];
  const selection = useRowSelection(rows.map((m) => m.id));
  const remove = useDeleteMspsMutation();
  const fetchDependants = useMspDependantsFetcher();
  const toastResult = useMultiDeleteToasts();

  const onDelete = async () => {
    const names = new Map(rows.map((m) => [String(m.id), m.name]));
    const outcome = await remove.run(rows.filter((m) => selection.selected.includes(m.id)));
    toastResult({
      deleted: outcome.succeeded.length,
      failed: outcome.failed.map((f) => ({ name: names.get(f.id) ?? f.id, error: f.error })),
    });
    if (session.selectedMsp !== null && outcome.succeeded.includes(String(session.selectedMsp))) {
      store.selectMsp(null);
      store.selectCustomer(null);
    }
    selection.clear();
    list.afterDelete(outcome.succeeded.length, rows.length);
  };

  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('msps.new')}
          </Button>
        }
      />
      <Dashboard
        owner={{ kind: 'system' }}
        // A top domain or category opens which MSPs made its queries (issue 29 drill-down).
        topDrill={{
          linkFor: (entry) => topEntryBreakdownLink(SYSTEM_BREAKDOWN_PATH, entry),
          label: (name) => t('breakdown.drill', { name }),
        }}
      />
      <ListToolbar
        list={list}
        actions={
          <DeleteSelectedButton
            count={selection.selected.length}
            loading={remove.isPending}
            onConfirm={onDelete}
            items={rows.filter((m) => selection.selected.includes(m.id)).map((m) => ({ id: m.id, name: m.name }))}
            kind="msps"
            fetchDependants={fetchDependants}
          />
        }
      />
      <MspsTable
        query={msps}
        list={list}
        basePath="/system/overview"
        selection={selection}
        onOpen={(msp) => {
          store.selectMsp(msp.id);
          store.selectCustomer(null);
        }}
      />
      <DeferredModal opened={opened} onClose={close} title={t('msps.new')} size="lg">
        <Suspense fallback={null}>
          <MspCreateForm onDone={close} />
        </Suspense>
      </DeferredModal>
    </>
  );
}
