import { type Customer, type Msp, parseLicenceLimit } from '@cordon/shared';
import { Anchor, Button, Group, Modal, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconArrowRight, IconPencil } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Navigate, useNavigate } from 'react-router';
import { ConfirmDeleteButton } from '../../components/ConfirmDeleteButton.tsx';
import { ListToolbar, QueryDataTable, useListState } from '../../components/DataTable.tsx';
import { Dashboard } from '../../components/dashboard/Dashboard.tsx';
import { StatsNumbers } from '../../components/dashboard/StatsNumbers.tsx';
import { useFormat } from '../../components/format.ts';
import { useIdParam } from '../../components/idParam.ts';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useSession, useSessionStore } from '../../session/context.ts';
import {
  useDeleteMspMutation,
  useMspCustomersQuery,
  useMspDependantsFetcher,
  useMspQuery,
  useMspTotalsQuery,
} from './api.ts';
import { MSP_BREAKDOWN_PATH, topEntryBreakdownLink } from './breakdownLinks.ts';
import { MspEditForm } from './MspEditForm.tsx';

type CustomerSortKey = 'name' | 'timezone' | 'created_at';

/** One labelled value of the MSP's summary. */
function Fact({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={600} {...(testId ? { 'data-testid': testId } : {})}>
        {value}
      </Text>
    </div>
  );
}

/** The MSP's licence use: "3 of 10" when its licence is a number, else "3 (no limit)". */
function useLicenceText(msp: Msp): string {
  const { t } = useTranslation();
  const limit = parseLicenceLimit(msp.license);
  return limit === null
    ? t('msps.licenceUnlimited', { count: msp.customers_count })
    : t('msps.licenceUse', { used: msp.customers_count, limit });
}

/** The MSP's customers: search, sort and paging (spec-notes §9); the system admin opens one in its customer area. */
function MspCustomers({ mspId, canOpen }: { mspId: number; canOpen: boolean }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const store = useSessionStore();
  const navigate = useNavigate();
  const list = useListState<CustomerSortKey>({ key: 'name', dir: 'asc' });
  const customers = useMspCustomersQuery(mspId, list.query);
  const open = (c: Customer) => {
    store.selectMsp(mspId);
    store.selectCustomer(c.id);
    void navigate('/customer/overview');
  };
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        {t('msps.customers')}
      </Title>
      <ListToolbar list={list} />
      <QueryDataTable
        query={customers}
        list={list}
        testId="msp-customers-table"
        rowKey={(c) => c.id}
        columns={[
          {
            key: 'name',
            header: t('msps.customerName'),
            sortKey: 'name',
            render: (c) =>
              canOpen ? (
                <Anchor component="button" type="button" onClick={() => open(c)} fw={500}>
                  {c.accountName}
                </Anchor>
              ) : (
                c.accountName
              ),
          },
          {
            key: 'timezone',
            header: t('common.timezone'),
            sortKey: 'timezone',
            render: (c) => c.timezone || t('common.useSystemDefault'),
          },
          {
            key: 'created',
            header: t('common.created'),
            sortKey: 'created_at',
            render: (c) => fmt.date(c.created_at),
          },
        ]}
      />
    </Stack>
  );
}

/** The system admin's actions on one MSP: act on it, edit it, delete it (after a confirmation). */
function MspActions({ msp }: { msp: Msp }) {
  const { t } = useTranslation();
  const store = useSessionStore();
  const session = useSession();
  const navigate = useNavigate();
  const [editing, { open, close }] = useDisclosure(false);
  const remove = useDeleteMspMutation(msp.id, msp.name);
  const fetchDependants = useMspDependantsFetcher();
  return (
    <Group gap="xs" wrap="wrap">
      <Button
        leftSection={<IconArrowRight size={16} aria-hidden />}
        onClick={() => {
          store.selectMsp(msp.id);
          store.selectCustomer(null);
          void navigate('/msp/overview');
        }}
      >
        {t('msps.openArea')}
      </Button>
      <Button variant="default" leftSection={<IconPencil size={16} aria-hidden />} onClick={open}>
        {t('msps.edit')}
      </Button>
      <ConfirmDeleteButton
        label={t('common.delete')}
        title={t('msps.deleteTitle')}
        text={t('msps.deleteText', { name: msp.name })}
        item={{ id: msp.id, name: msp.name }}
        kind="msps"
        fetchDependants={fetchDependants}
        confirmName={msp.name}
        loading={remove.isPending}
        onConfirm={() =>
          remove.mutateAsync(undefined).then(() => {
            if (session.selectedMsp === msp.id) {
              store.selectMsp(null);
              store.selectCustomer(null);
            }
            showSuccessToast(t('msps.deleted', { name: msp.name }));
            void navigate('/system/overview');
          })
        }
      />
      <Modal opened={editing} onClose={close} title={t('msps.edit')} size="lg">
        <MspEditForm msp={msp} onDone={close} />
      </Modal>
    </Group>
  );
}

/** The MSP's traffic totals over the last 30 days, for the sales area (read-only, spec-notes §2 Sales). */
function SalesTotals({ mspId }: { mspId: number }) {
  const { t } = useTranslation();
  const totals = useMspTotalsQuery(mspId);
  return (
    <Paper withBorder p="md" radius="md">
      <Title order={2} size="h4" mb="sm">
        {t('msps.trafficTotals')}
      </Title>
      <QueryState query={totals}>{(stats) => <StatsNumbers stats={stats} />}</QueryState>
    </Paper>
  );
}

/** The page body once the MSP is loaded. */
function MspDetail({ msp, mode }: { msp: Msp; mode: 'system' | 'sales' }) {
  const { t } = useTranslation();
  const store = useSessionStore();
  const fmt = useFormat();
  usePageSubtitle(msp.name);
  const licence = useLicenceText(msp);
  return (
    <Stack gap="lg">
      <Paper withBorder p="md" radius="md">
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
          <Fact label={t('msps.company')} value={msp.company_name} />
          <Fact label={t('msps.licenceUseLabel')} value={licence} testId="msp-licence-use" />
          <Fact label={t('common.timezone')} value={msp.timezone || t('common.useSystemDefault')} />
          <Fact label={t('common.created')} value={fmt.date(msp.created_at)} />
        </SimpleGrid>
      </Paper>
      {mode === 'system' ? <MspActions msp={msp} /> : null}
      {mode === 'system' ? (
        <Dashboard
          owner={{ kind: 'msp', id: msp.id }}
          // A top domain or category opens which of this MSP's customers made its queries (issue 29
          // drill-down): the breakdown is an MSP-area page, so the link selects this MSP first.
          topDrill={{
            linkFor: (entry) => topEntryBreakdownLink(MSP_BREAKDOWN_PATH, entry),
            label: (name) => t('breakdown.drill', { name }),
            onFollow: () => {
              store.selectMsp(msp.id);
              store.selectCustomer(null);
            },
          }}
        />
      ) : (
        <SalesTotals mspId={msp.id} />
      )}
      <MspCustomers mspId={msp.id} canOpen={mode === 'system'} />
    </Stack>
  );
}

function MspDetailPage({ mode }: { mode: 'system' | 'sales' }) {
  const id = useIdParam();
  if (id === null) return <Navigate to="/404" replace />;
  return <LoadedMsp id={id} mode={mode} />;
}

function LoadedMsp({ id, mode }: { id: number; mode: 'system' | 'sales' }) {
  const msp = useMspQuery(id);
  return (
    <>
      <PageHeader />
      <QueryState query={msp}>{(m) => <MspDetail msp={m} mode={mode} />}</QueryState>
    </>
  );
}

/**
 * `/system/overview/:id` (spec-notes §2 "system overview id"): one MSP — its details and licence use,
 * "Open as MSP", edit and delete, its traffic dashboard and its customers.
 */
export function SystemMspPage() {
  return <MspDetailPage mode="system" />;
}

/** `/sales/msps/:id` (spec-notes §2 "sales MSP id"): one MSP read-only — details, licence use and its customers. */
export function SalesMspPage() {
  return <MspDetailPage mode="sales" />;
}
