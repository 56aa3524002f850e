import { Button, Modal } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListPagination } from '../../components/ListPagination.tsx';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useMspId, useSessionStore } from '../../session/context.ts';
import { useCustomersQuery, useMspQuery } from './api.ts';
import { CustomerCreateForm } from './CustomerCreateForm.tsx';
import { CustomersTable } from './CustomersTable.tsx';

/**
 * `/msp/overview` (spec §2): the customers of the MSP in scope (the selected MSP for role 1, the
 * token's for role 3) with a "New customer" form; opening a customer selects it.
 */
export function MspOverviewPage() {
  const { t } = useTranslation();
  const mspId = useMspId();
  const session = useSessionStore();
  const [page, setPage] = useState(1);
  const [opened, { open, close }] = useDisclosure(false);
  const msp = useMspQuery(mspId);
  const customers = useCustomersQuery(mspId, page);
  usePageSubtitle(msp.data?.name);
  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('customers.new')}
          </Button>
        }
      />
      <QueryState query={customers}>
        {(list) => (
          <>
            <CustomersTable customers={list.data} onOpen={(c) => session.selectCustomer(c.id)} />
            <ListPagination total={list.total} page={page} onChange={setPage} />
          </>
        )}
      </QueryState>
      <Modal opened={opened} onClose={close} title={t('customers.new')} size="lg">
        <CustomerCreateForm mspId={mspId} onDone={close} />
      </Modal>
    </>
  );
}
