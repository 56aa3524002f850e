import { ErrorTexts } from '@cordon/shared';
import { Anchor, Button, Group, Modal } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ListToolbar, QueryDataTable, useListState } from '../../components/DataTable.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../../components/RowSelection.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import {
  type CloudKeySortKey,
  useCloudKeysQuery,
  useCreateCloudKeyMutation,
  useDeleteCloudKeysMutation,
} from './api.ts';
import { CloudKeyForm } from './CloudKeyForm.tsx';

/**
 * `/customer/content_filtering/cloud_keys` (spec-notes §2 "cloud keys"): the customer's cloud keys with
 * paging, sort and search (spec-notes §9), "New cloud key" (toast "Cloud Key added", spec-notes §8) and
 * "Delete selected" as one `/batch` after a confirmation. The maximum uses are not shown in the list
 * (spec-notes §9); the key id page has them.
 */
export function CloudKeysPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const list = useListState<CloudKeySortKey>({ key: 'name', dir: 'asc' });
  const [opened, { open, close }] = useDisclosure(false);
  const keys = useCloudKeysQuery(customerId, list.query);
  const rows = keys.data?.data ?? [];
  const selection = useRowSelection(rows.map((k) => k.id));
  const create = useCreateCloudKeyMutation(customerId);
  const remove = useDeleteCloudKeysMutation(customerId);
  const toastResult = useMultiDeleteToasts();

  const onDelete = async () => {
    const names = new Map(rows.map((k) => [String(k.id), k.key]));
    const outcome = await remove.run(selection.selected);
    toastResult({
      deleted: outcome.succeeded.length,
      failed: outcome.failed.map((f) => ({ name: names.get(f.id) ?? f.id, error: f.error })),
    });
    selection.clear();
    list.afterDelete(outcome.succeeded.length, rows.length);
  };

  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('cloudkeys.new')}
          </Button>
        }
      />
      <ListToolbar
        list={list}
        actions={
          <DeleteSelectedButton
            count={selection.selected.length}
            loading={remove.isPending}
            onConfirm={onDelete}
            items={rows.filter((k) => selection.selected.includes(k.id)).map((k) => ({ id: k.id, name: k.key }))}
            kind="cloudkeys"
          />
        }
      />
      <QueryDataTable
        query={keys}
        list={list}
        testId="cloudkeys-table"
        rowKey={(k) => k.id}
        select={{ selection, rowId: (k) => k.id, rowName: (k) => k.key }}
        columns={[
          {
            key: 'key',
            header: t('cloudkeys.key'),
            sortKey: 'name',
            render: (k) => (
              <Group gap="xs" wrap="nowrap">
                <Anchor component={Link} to={`/customer/content_filtering/cloud_keys/${k.id}`} fw={500}>
                  {k.key}
                </Anchor>
                {k.active ? null : <StatusBadge status="inactive" size="xs" />}
              </Group>
            ),
          },
          { key: 'description', header: t('common.description'), sortKey: 'description', render: (k) => k.description },
          { key: 'used', header: t('cloudkeys.timesUsed'), sortKey: 'times_used', render: (k) => k.times_used },
          {
            key: 'expires',
            header: t('cloudkeys.expiresAfter'),
            render: (k) => t('cloudkeys.minutes', { count: Math.round(k.expires_after / 60) }),
          },
        ]}
      />
      <Modal opened={opened} onClose={close} title={t('cloudkeys.new')} size="lg">
        <CloudKeyForm
          cloudKey={null}
          pending={create.isPending}
          onCancel={close}
          submit={(body) =>
            create.mutateAsync(body).then(() => {
              showSuccessToast(ErrorTexts.cloudKeyAdded);
              close();
            })
          }
        />
      </Modal>
    </>
  );
}
