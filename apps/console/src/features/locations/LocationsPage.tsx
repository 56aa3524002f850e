import { Button, Modal } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useCustomerId } from '../../session/context.ts';
import { useLocationsQuery } from './api.ts';
import { LocationCreateForm } from './LocationCreateForm.tsx';
import { LocationsTable } from './LocationsTable.tsx';

/** `/customer/environment/locations` (spec §2): the customer's locations and a "New location" (static IP) form. */
export function LocationsPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const [opened, { open, close }] = useDisclosure(false);
  const locations = useLocationsQuery(customerId);
  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('locations.new')}
          </Button>
        }
      />
      <QueryState query={locations}>{(list) => <LocationsTable locations={list.data} />}</QueryState>
      <Modal opened={opened} onClose={close} title={t('locations.newStaticIp')} size="lg">
        <LocationCreateForm customerId={customerId} onDone={close} />
      </Modal>
    </>
  );
}
