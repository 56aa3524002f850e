import { Anchor, Button, Group, Modal } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { ListToolbar, QueryDataTable, useListState } from '../../components/DataTable.tsx';
import { useFormat } from '../../components/format.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../../components/RowSelection.tsx';
import type { DeleteChoice } from '../../components/SafeDeleteDialog.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import {
  type GroupSortKey,
  groupMoveOptions,
  useCreateGroupMutation,
  useDeleteGroupsMutation,
  useGroupDependantsFetcher,
  useGroupsQuery,
} from './api.ts';
import { GroupForm } from './GroupForm.tsx';
import { GroupTabs } from './GroupTabs.tsx';

/**
 * `/customer/environment/groups` (spec-notes §2 "All Groups"): the customer's groups with their rank,
 * policy, members and status, sort and search (spec-notes §9: up to 10000 a page), "New group" (ranked
 * last) and "Delete selected" as one `/batch`.
 */
export function GroupsPage() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const navigate = useNavigate();
  const customerId = useCustomerId();
  const [opened, { open, close }] = useDisclosure(false);
  const list = useListState<GroupSortKey>({ key: 'weight', dir: 'asc' });
  const groups = useGroupsQuery(customerId, { ...list.query, limit: 10_000, offset: 0 });
  const rows = groups.data?.data ?? [];
  const selection = useRowSelection(rows.map((g) => g.id));
  const create = useCreateGroupMutation(customerId);
  const remove = useDeleteGroupsMutation(customerId);
  const toastResult = useMultiDeleteToasts();
  const fetchDependants = useGroupDependantsFetcher(customerId);
  const onDelete = async (choice: DeleteChoice) => {
    const names = new Map(rows.map((g) => [String(g.id), g.name]));
    const outcome = await remove.run(selection.selected, choice.moveTo);
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
            {t('groups.new')}
          </Button>
        }
      />
      <GroupTabs active="all" />
      <ListToolbar
        list={list}
        searchLabel={t('groups.search')}
        actions={
          <DeleteSelectedButton
            count={selection.selected.length}
            loading={remove.isPending}
            onConfirm={onDelete}
            items={rows.filter((g) => selection.selected.includes(g.id)).map((g) => ({ id: g.id, name: g.name }))}
            kind="groups"
            fetchDependants={fetchDependants}
            move={{
              label: t('safeDelete.moveGroup'),
              options: groupMoveOptions(rows, selection.selected, t('safeDelete.detachMembers')),
            }}
          />
        }
      />
      <QueryDataTable
        query={groups}
        list={list}
        testId="groups-table"
        minWidth={640}
        rowKey={(g) => g.id}
        select={{ selection, rowId: (g) => g.id, rowName: (g) => g.name }}
        columns={[
          { key: 'weight', header: t('groups.rank'), sortKey: 'weight', w: 70, render: (g) => g.weight },
          {
            key: 'name',
            header: t('common.name'),
            sortKey: 'name',
            render: (g) => (
              <Group gap="xs" wrap="nowrap">
                <Anchor component={Link} to={`/customer/environment/groups/${g.id}`} fw={500}>
                  {g.name}
                </Anchor>
                {g.disable ? <StatusBadge status="disabled" size="xs" /> : null}
              </Group>
            ),
          },
          { key: 'description', header: t('common.description'), sortKey: 'description', render: (g) => g.description },
          { key: 'policy', header: t('groups.policy'), render: (g) => g.policy || t('groups.noPolicy') },
          { key: 'users', header: t('groups.members'), render: (g) => g.users_count },
          {
            key: 'updated',
            header: t('groups.lastModified'),
            sortKey: 'last_updated',
            render: (g) => fmt.dateTime(g.last_modified),
          },
        ]}
      />
      <Modal opened={opened} onClose={close} title={t('groups.new')}>
        <GroupForm
          customerId={customerId}
          group={null}
          pending={create.isPending}
          onCancel={close}
          submit={(body) =>
            create.mutateAsync(body).then((g) => {
              showSuccessToast(t('groups.created'));
              close();
              navigate(`/customer/environment/groups/${g.id}`);
            })
          }
        />
      </Modal>
    </>
  );
}
