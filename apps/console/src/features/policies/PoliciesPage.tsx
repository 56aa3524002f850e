import { Button, Modal } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListPagination, pageQuery } from '../../components/ListPagination.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useCustomerId } from '../../session/context.ts';
import { usePoliciesQuery } from './api.ts';
import { PoliciesTable } from './PoliciesTable.tsx';
import { PolicyCreateForm } from './PolicyCreateForm.tsx';

/** `/customer/content_filtering/policies` (spec §2): the customer's policies and a "New policy" form. */
export function PoliciesPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const [page, setPage] = useState(1);
  const [opened, { open, close }] = useDisclosure(false);
  const policies = usePoliciesQuery(customerId, { ...pageQuery(page), show_default: true });
  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('policies.new')}
          </Button>
        }
      />
      <QueryState query={policies}>
        {(list) => (
          <>
            <PoliciesTable policies={list.data} />
            <ListPagination total={list.total} page={page} onChange={setPage} />
          </>
        )}
      </QueryState>
      <Modal opened={opened} onClose={close} title={t('policies.new')} size="lg">
        <PolicyCreateForm customerId={customerId} onDone={close} />
      </Modal>
    </>
  );
}
