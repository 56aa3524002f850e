import { Anchor } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ListFilterSelect, ListToolbar, QueryDataTable, useListState } from '../../components/DataTable.tsx';
import { useFormat } from '../../components/format.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../../components/RowSelection.tsx';
import { useCustomerId } from '../../session/context.ts';
import { type UserSortKey, useDeleteUsersMutation, useGroupChoicesQuery, useUsersQuery } from './api.ts';

/**
 * `/customer/environment/users` (spec-notes §2 "users"): the people agents reported, with their policy,
 * effective group, last login and last login address; paging, sort, search and a group filter
 * (spec-notes §7 `group_id`); "Delete selected" as one `/batch`.
 */
export function UsersPage() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const customerId = useCustomerId();
  const list = useListState<UserSortKey>({ key: 'name', dir: 'asc' });
  const [group, setGroup] = useState<string | null>(null);
  const groups = useGroupChoicesQuery(customerId);
  const users = useUsersQuery(customerId, { ...list.query, group_id: group === null ? undefined : Number(group) });
  const rows = users.data?.data ?? [];
  const selection = useRowSelection(rows.map((u) => u.id));
  const remove = useDeleteUsersMutation(customerId);
  const toastResult = useMultiDeleteToasts();
  const onDelete = async () => {
    const names = new Map(rows.map((u) => [String(u.id), u.name]));
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
      <PageHeader />
      <ListToolbar
        list={list}
        searchLabel={t('internalUsers.search')}
        actions={
          <>
            <ListFilterSelect
              list={list}
              label={t('internalUsers.groupFilter')}
              anyLabel={t('internalUsers.anyGroup')}
              options={groups.data?.data ?? []}
              value={group}
              onChange={setGroup}
            />
            <DeleteSelectedButton
              count={selection.selected.length}
              loading={remove.isPending}
              onConfirm={onDelete}
              items={rows.filter((u) => selection.selected.includes(u.id)).map((u) => ({ id: u.id, name: u.name }))}
              kind="internal_users"
            />
          </>
        }
      />
      <QueryDataTable
        query={users}
        list={list}
        testId="users-table"
        minWidth={720}
        emptyText={t('internalUsers.empty')}
        rowKey={(u) => u.id}
        select={{ selection, rowId: (u) => u.id, rowName: (u) => u.name }}
        columns={[
          {
            key: 'name',
            header: t('common.name'),
            sortKey: 'name',
            render: (u) => (
              <Anchor component={Link} to={`/customer/environment/users/${u.id}`} fw={500}>
                {u.name}
              </Anchor>
            ),
          },
          { key: 'description', header: t('common.description'), render: (u) => u.description },
          { key: 'policy', header: t('internalUsers.policy'), render: (u) => u.policy || '—' },
          { key: 'group', header: t('internalUsers.group'), render: (u) => u.group ?? '—' },
          {
            key: 'login',
            header: t('internalUsers.lastLogin'),
            sortKey: 'last_login',
            render: (u) => (u.last_login ? fmt.dateTime(u.last_login) : '—'),
          },
          {
            key: 'ip',
            header: t('internalUsers.lastLoginIp'),
            sortKey: 'last_login_ip',
            render: (u) => u.last_login_ip || '—',
            td: { ff: 'monospace' },
          },
        ]}
      />
    </>
  );
}
