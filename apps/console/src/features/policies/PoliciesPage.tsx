import { Button, Modal } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ListToolbar, useListState } from '../../components/DataTable.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../../components/RowSelection.tsx';
import type { DeleteChoice } from '../../components/SafeDeleteDialog.tsx';
import { useCustomerId } from '../../session/context.ts';
import {
  type PolicySortKey,
  useAllPoliciesQuery,
  useDeletePoliciesMutation,
  usePoliciesQuery,
  usePolicyDependantsFetcher,
} from './api.ts';
import { PoliciesTable } from './PoliciesTable.tsx';
import { PolicyCreateForm } from './PolicyCreateForm.tsx';

/**
 * `/customer/content_filtering/policies` (spec-notes §2): the customer's policies with paging (10 a page,
 * offset = size × page − size), sort (default name ascending) and search (spec-notes §9), a "New policy"
 * form, and "Delete selected" sent as one `/batch` (spec-notes §7 Batch): the dialog names the policies,
 * shows what uses each (locations, groups, users, devices) and, when any is in use, asks which policy
 * takes them over (issue 29). The default policy cannot be deleted, so it cannot be selected.
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
  const fetchDependants = usePolicyDependantsFetcher();
  const all = useAllPoliciesQuery(customerId);
  const selectedItems = rows.filter((p) => selection.selected.includes(p.id)).map((p) => ({ id: p.id, name: p.name }));
  // Where the dependants may go: any other policy of the customer (the default included) not being deleted.
  const targets = (all.data?.data ?? [])
    .filter((p) => !selection.selected.includes(p.id))
    .map((p) => ({ value: String(p.id), label: p.name }));

  const onDelete = async (choice: DeleteChoice) => {
    const ids = selection.selected;
    const names = new Map(rows.map((p) => [String(p.id), p.name]));
    const outcome = await remove.run(ids, choice.moveTo === null ? null : Number(choice.moveTo));
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
          <DeleteSelectedButton
            count={selection.selected.length}
            loading={remove.isPending}
            onConfirm={onDelete}
            items={selectedItems}
            kind="policies"
            fetchDependants={fetchDependants}
            move={{ label: t('safeDelete.movePolicy'), options: targets }}
          />
        }
      />
      <PoliciesTable query={policies} selection={selection} list={list} />
      <Modal opened={opened} onClose={close} title={t('policies.new')} size="lg">
        <PolicyCreateForm customerId={customerId} onDone={close} />
      </Modal>
    </>
  );
}
