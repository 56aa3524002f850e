import { Button, Group, Modal } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../../components/RowSelection.tsx';
import { useCustomerId } from '../../session/context.ts';
import { useDeleteLocationsMutation, useLocationsQuery } from './api.ts';
import { LocationCreateForm } from './LocationCreateForm.tsx';
import { LocationsTable } from './LocationsTable.tsx';

/**
 * `/customer/environment/locations` (spec §2): the customer's locations, a "New location" (static IP)
 * form, and "Delete selected" sent as one `/batch` (spec §7 Batch). Only static-IP locations have a
 * delete route today, so only they can be selected.
 */
export function LocationsPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const [opened, { open, close }] = useDisclosure(false);
  const locations = useLocationsQuery(customerId);
  const rows = locations.data?.data ?? [];
  const selection = useRowSelection(rows.filter((l) => l.type === 'staticip').map((l) => l.id));
  const remove = useDeleteLocationsMutation(customerId);
  const toastResult = useMultiDeleteToasts();
  const onDelete = async () => {
    const names = new Map(rows.map((l) => [String(l.id), l.name]));
    const outcome = await remove.run(selection.selected);
    toastResult({
      deleted: outcome.succeeded.length,
      failed: outcome.failed.map((f) => ({ name: names.get(f.id) ?? f.id, error: f.error })),
    });
    selection.clear();
  };
  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('locations.new')}
          </Button>
        }
      />
      <Group justify="flex-end" mb="md">
        <DeleteSelectedButton count={selection.selected.length} loading={remove.isPending} onConfirm={onDelete} />
      </Group>
      <QueryState query={locations}>
        {(list) => <LocationsTable locations={list.data} selection={selection} />}
      </QueryState>
      <Modal opened={opened} onClose={close} title={t('locations.newStaticIp')} size="lg">
        <LocationCreateForm customerId={customerId} onDone={close} />
      </Modal>
    </>
  );
}
