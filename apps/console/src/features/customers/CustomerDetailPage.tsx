import { accountShortName, type Customer } from '@cordon/shared';
import { Avatar, Button, Group, Modal, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconArrowRight, IconPencil } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Navigate, useNavigate } from 'react-router';
import { ConfirmDeleteButton } from '../../components/ConfirmDeleteButton.tsx';
import { Dashboard } from '../../components/dashboard/Dashboard.tsx';
import { useFormat } from '../../components/format.ts';
import { useIdParam } from '../../components/idParam.ts';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useMspId, useSession, useSessionStore } from '../../session/context.ts';
import { useCustomerDependantsFetcher, useCustomerQuery, useDeleteCustomerMutation } from './api.ts';
import { CustomerEditForm } from './CustomerEditForm.tsx';

/** One labelled value of the customer's summary. */
function Fact({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={600} style={{ wordBreak: 'break-all' }}>
        {value}
      </Text>
    </div>
  );
}

/** The page body once the customer is loaded. */
function CustomerDetail({ customer }: { customer: Customer }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const store = useSessionStore();
  const session = useSession();
  const navigate = useNavigate();
  const [editing, { open, close }] = useDisclosure(false);
  const remove = useDeleteCustomerMutation(customer.id, customer.accountName);
  const fetchDependants = useCustomerDependantsFetcher();
  usePageSubtitle(customer.accountName);
  return (
    <Stack gap="lg">
      <Paper withBorder p="md" radius="md">
        <Group gap="md" mb="md" wrap="nowrap">
          <Avatar size="lg" radius="xl" color="blue" aria-hidden>
            {accountShortName(customer.accountName)}
          </Avatar>
          <Text fw={700} size="lg">
            {customer.accountName}
          </Text>
        </Group>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
          <Fact label={t('customers.msp')} value={customer.msp_name} />
          <Fact label={t('common.timezone')} value={customer.timezone || t('common.useSystemDefault')} />
          <Fact label={t('customers.uuid')} value={customer.uuid_str} />
          <Fact label={t('common.created')} value={fmt.date(customer.created_at)} />
        </SimpleGrid>
      </Paper>
      <Group gap="xs" wrap="wrap">
        <Button
          leftSection={<IconArrowRight size={16} aria-hidden />}
          onClick={() => {
            store.selectCustomer(customer.id);
            void navigate('/customer/overview');
          }}
        >
          {t('customers.openArea')}
        </Button>
        <Button variant="default" leftSection={<IconPencil size={16} aria-hidden />} onClick={open}>
          {t('customers.edit')}
        </Button>
        <ConfirmDeleteButton
          label={t('common.delete')}
          title={t('customers.deleteTitle')}
          text={t('customers.deleteText', { name: customer.accountName })}
          item={{ id: customer.id, name: customer.accountName }}
          kind="customers"
          fetchDependants={fetchDependants}
          confirmName={customer.accountName}
          loading={remove.isPending}
          onConfirm={() =>
            remove.mutateAsync(undefined).then(() => {
              if (session.selectedCustomer === customer.id) store.selectCustomer(null);
              showSuccessToast(t('customers.deleted', { name: customer.accountName }));
              void navigate('/msp/overview');
            })
          }
        />
      </Group>
      <Dashboard owner={{ kind: 'customer', id: customer.id }} />
      <Modal opened={editing} onClose={close} title={t('customers.edit')} size="lg">
        <CustomerEditForm customer={customer} onDone={close} />
      </Modal>
    </Stack>
  );
}

function LoadedCustomer({ id }: { id: number }) {
  const mspId = useMspId();
  const customer = useCustomerQuery(id);
  return (
    <>
      <PageHeader />
      <QueryState query={customer}>
        {(c) => (c.msp_id === mspId ? <CustomerDetail customer={c} /> : <Navigate to="/msp/overview" replace />)}
      </QueryState>
    </>
  );
}

/**
 * `/msp/overview/:id` (spec-notes §2 "MSP overview id"): one customer of the MSP in scope — its details,
 * "Open customer" (selects it and opens its area), edit, delete (after a confirmation) and its
 * traffic dashboard. A customer of another MSP leads back to the overview.
 */
export function CustomerDetailPage() {
  const id = useIdParam();
  if (id === null) return <Navigate to="/404" replace />;
  return <LoadedCustomer id={id} />;
}
