import { Button, Modal } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListPagination } from '../../components/ListPagination.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useSessionStore } from '../../session/context.ts';
import { useMspsQuery } from './api.ts';
import { MspCreateForm } from './MspCreateForm.tsx';
import { MspsTable } from './MspsTable.tsx';

/**
 * `/system/overview` (spec §2): the MSPs with a "New MSP" form; opening an MSP stores it as the
 * selected MSP the system admin acts on (spec §4) and goes to its overview.
 */
export function SystemOverviewPage() {
  const { t } = useTranslation();
  const session = useSessionStore();
  const [page, setPage] = useState(1);
  const [opened, { open, close }] = useDisclosure(false);
  const msps = useMspsQuery(page);
  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('msps.new')}
          </Button>
        }
      />
      <QueryState query={msps}>
        {(list) => (
          <>
            <MspsTable
              msps={list.data}
              onOpen={(msp) => {
                session.selectMsp(msp.id);
                session.selectCustomer(null);
              }}
            />
            <ListPagination total={list.total} page={page} onChange={setPage} />
          </>
        )}
      </QueryState>
      <Modal opened={opened} onClose={close} title={t('msps.new')} size="lg">
        <MspCreateForm onDone={close} />
      </Modal>
    </>
  );
}
