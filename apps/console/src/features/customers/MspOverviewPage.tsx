import { parseLicenceLimit } from '@cordon/shared';
import { Button, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListToolbar } from '../../components/DataTable.tsx';
import { DeferredModal } from '../../components/Deferred.tsx';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../../components/RowSelection.tsx';
import { useMspId, useSession, useSessionStore } from '../../session/context.ts';
import { MSP_BREAKDOWN_PATH, topEntryBreakdownLink } from '../msps/breakdownLinks.ts';
import { CustomerBulkActions, CustomerStatusTable } from '../msps/CustomerStatusList.tsx';
import { useCustomerStatusListState, useCustomerStatusQuery } from '../msps/customerStatusApi.ts';
import { useCustomerDependantsFetcher, useDeleteCustomersMutation, useMspQuery } from './api.ts';

// The dashboard renders after the customer list, the page's main content: its code (numbers, top
// lists, period switch) loads then too, not before the list (bench/README.md "Console first load").
const Dashboard = lazy(() =>
  import('../../components/dashboard/Dashboard.tsx').then((m) => ({ default: m.Dashboard })),
);

// The form (its schemas, the form library, the password input) loads when "New customer" is
// clicked, not with the overview: issue 28's first-load budget (bench/README.md "Console first load").
const CustomerCreateForm = lazy(() =>
  import('./CustomerCreateForm.tsx').then((m) => ({ default: m.CustomerCreateForm })),
);

/**
 * `/msp/overview` (spec-notes §2): the MSP in scope (the selected MSP for role 1, the token's for role 3):
 * its customers first, 100 at a glance with their status (issue 29; search, sort and page in the
 * address, bulk actions), then its dashboard and licence use, "New customer" (refused with a clear
 * message beyond the licence) and "Delete selected" as one `/batch`.
 * A customer's name selects it and opens its area; its details button opens its id page.
 */
export function MspOverviewPage() {
  const { t } = useTranslation();
  const mspId = useMspId();
  const session = useSession();
  const store = useSessionStore();
  const queryClient = useQueryClient();
  const list = useCustomerStatusListState();
  const [opened, { open, close }] = useDisclosure(false);
  const msp = useMspQuery(mspId);
  const customers = useCustomerStatusQuery(mspId, list);
  const rows = customers.data?.data ?? [];
  const selection = useRowSelection(rows.map((c) => c.id));
  const remove = useDeleteCustomersMutation();
  const fetchDependants = useCustomerDependantsFetcher();
  const toastResult = useMultiDeleteToasts();
  usePageSubtitle(msp.data?.name);
  const limit = msp.data ? parseLicenceLimit(msp.data.license) : null;
  // The dashboard renders (and fetches) after the list has painted: a commit of its own.
  const [dashboardShown, setDashboardShown] = useState(false);
  const listReady = customers.isSuccess;
  useEffect(() => {
    if (!listReady) return;
    const id = window.setTimeout(() => setDashboardShown(true), 0);
    return () => window.clearTimeout(id);
  }, [listReady]);

  const onDelete = async () => {
    const names = new Map(rows.map((c) => [String(c.id), c.name]));
    // The dialog listed the customers and what they own: their names confirm the cascade (issue 29).
    const outcome = await remove.run(selection.selected, new Map(rows.map((c) => [c.id, c.name])));
    toastResult({
      deleted: outcome.succeeded.length,
      failed: outcome.failed.map((f) => ({ name: names.get(f.id) ?? f.id, error: f.error })),
    });
    if (session.selectedCustomer !== null && outcome.succeeded.includes(String(session.selectedCustomer))) {
      store.selectCustomer(null);
    }
    selection.clear();
    list.afterDelete(outcome.succeeded.length, rows.length);
    // The status list is a stats read: refreshed with the customers.
    void queryClient.invalidateQueries({ queryKey: ['stats'] });
  };

  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('customers.new')}
          </Button>
        }
      />
      {msp.data ? (
        <Text size="sm" c="dimmed" mb="sm" data-testid="licence-use">
          {limit === null
            ? t('customers.licenceUnlimited', { count: msp.data.customers_count })
            : t('customers.licenceUse', { used: msp.data.customers_count, limit })}
        </Text>
      ) : null}
      <ListToolbar
        list={list}
        searchLabel={t('customerStatus.search')}
        actions={
          <>
            <CustomerBulkActions rows={rows} selection={selection} />
            <DeleteSelectedButton
              count={selection.selected.length}
              loading={remove.isPending}
              onConfirm={onDelete}
              items={rows.filter((c) => selection.selected.includes(c.id)).map((c) => ({ id: c.id, name: c.name }))}
              kind="customers"
              fetchDependants={fetchDependants}
            />
          </>
        }
      />
      <CustomerStatusTable
        query={customers}
        list={list}
        selection={selection}
        onOpen={(c) => store.selectCustomer(c.id)}
      />
      {/* The dashboard waits for the list: the customers' status is what the page is for. */}
      {dashboardShown ? (
        <Suspense fallback={null}>
          <Dashboard
            owner={{ kind: 'msp', id: mspId }}
            // A top domain or category opens which customers made its queries (issue 29 drill-down).
            topDrill={{
              linkFor: (entry) => topEntryBreakdownLink(MSP_BREAKDOWN_PATH, entry),
              label: (name) => t('breakdown.drill', { name }),
            }}
          />
        </Suspense>
      ) : null}
      <DeferredModal opened={opened} onClose={close} title={t('customers.new')} size="lg">
        <Suspense fallback={null}>
          <CustomerCreateForm
            mspId={mspId}
            onDone={() => {
              close();
              void queryClient.invalidateQueries({ queryKey: ['stats'] });
            }}
          />
        </Suspense>
      </DeferredModal>
    </>
  );
}
