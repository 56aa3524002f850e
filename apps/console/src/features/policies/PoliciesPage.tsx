import { Button, Modal } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ListToolbar, useListState } from '../../components/DataTable.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../../components/RowSelection.tsx';
import { useCustomerId } from '../../session/context.ts';
import { type PolicySortKey, useDeletePoliciesMutation, usePoliciesQuery } from './api.ts';
import { PoliciesTable } from './PoliciesTable.tsx';
import { PolicyCreateForm } from './PolicyCreateForm.tsx';

/**
 * `/customer/content_filtering/policies` (spec-notes §2): the customer's policies with paging (10 a page,
 * offset = size × page − size), sort (default name ascending) and search (spec-notes §9), a "New policy"
 * form, and "Delete selected" sent as one `/batch` (spec-notes §7 Batch). The default policy cannot be
 * deleted, so it cannot be selected.
 */
export function PoliciesPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const list = useListState<PolicySortKey>({ key: 'name', dir: 'asc' });
  const [opened, { open, close }] = useDisclosure(false);
  const policies = usePoliciesQuery(customerId, { ...list.query, show_default: true });
  const rows = policies.data?.data ?? [];
  const selection = useRowSelection(rows.filter((p) => !p.is_default).map((p) => p.id));
  const remove = useDeletePoliciesMutation();
  const toastResult = useMultiDeleteToasts();

  const onDelete = async () => {
    const ids = selection.selected;
    const names = new Map(rows.map((p) => [String(p.id), p.name]));
    const outcome = await remove.run(ids);
    toastResult({
      deleted: outcome.succeeded.length,
      failed: outcome.failed.map((f) => ({ name: names.get(f.id) ?? f.id, error: f.error })),
    });
    selection.clear();
    // A page emptied by the delete shows the one before it.
    list.afterDelete(outcome.succeeded.length, rows.length);
  };

  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('policies.new')}
          </Button>
        }
      />
      <ListToolbar
        list={list}
        actions={
          <DeleteSelectedButton count={selection.selected.length} loading={remove.isPending} onConfirm={onDelete} />
        }
      />
      <PoliciesTable query={policies} selection={selection} list={list} />
      <Modal opened={opened} onClose={close} title={t('policies.new')} size="lg">
        <PolicyCreateForm customerId={customerId} onDone={close} />
      </Modal>
    </>
  );
}
