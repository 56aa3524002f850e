import type { Admin } from '@cordon/shared';
import { Anchor, Badge, Button, Group, Modal } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ListToolbar, QueryDataTable, useListState } from '../../components/DataTable.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../../components/RowSelection.tsx';
import { useCustomerId, useMspId, useSession } from '../../session/context.ts';
import { AdminCreateForm } from './AdminCreateForm.tsx';
import { type AdminLevel, type AdminSortKey, useAdminsQuery, useDeleteAdminsMutation } from './api.ts';

/** The list path of each level's Administrators page (spec-notes §2). */
export const ADMIN_LIST_PATHS = {
  system: '/system/global_settings/administrators',
  msp: '/msp/global_settings/administrators',
  customer: '/customer/settings/administrators',
} as const;

/**
 * An Administrators page (spec-notes §2, §3 "Admin": full name, email, role, 2FA shown On/Off): paging,
 * sort and search, "New administrator" (an invitation mail), and "Delete selected" as one `/batch`
 * after a confirmation; the primary (`is_default`) admin and oneself cannot be selected.
 */
function AdminsList({ level }: { level: AdminLevel }) {
  const { t } = useTranslation();
  const { claims } = useSession();
  const list = useListState<AdminSortKey>({ key: 'name', dir: 'asc' });
  const [opened, { open, close }] = useDisclosure(false);
  const admins = useAdminsQuery(level, list.query);
  const rows = admins.data?.data ?? [];
  const me = claims ? Number(claims.sub) : 0;
  const selection = useRowSelection(rows.filter((a) => !a.is_default && a.id !== me).map((a) => a.id));
  const remove = useDeleteAdminsMutation();
  const toastResult = useMultiDeleteToasts();
  const base = ADMIN_LIST_PATHS[level.kind];

  const onDelete = async () => {
    const names = new Map(rows.map((a) => [String(a.id), a.email]));
    const outcome = await remove.run(selection.selected);
    toastResult({
      deleted: outcome.succeeded.length,
      failed: outcome.failed.map((f) => ({ name: names.get(f.id) ?? f.id, error: f.error })),
    });
    selection.clear();
    list.afterDelete(outcome.succeeded.length, rows.length);
  };

  const name = (a: Admin) => (
    <Group gap="xs">
      <Anchor component={Link} to={`${base}/${a.id}`} fw={500}>
        {a.full_name}
      </Anchor>
      {a.is_default ? (
        <Badge size="xs" variant="light">
          {t('admins.primary')}
        </Badge>
      ) : null}
      {a.pending ? (
        <Badge size="xs" variant="light" color="yellow">
          {t('admins.pending')}
        </Badge>
      ) : null}
    </Group>
  );

  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('admins.new')}
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
            items={rows.filter((a) => selection.selected.includes(a.id)).map((a) => ({ id: a.id, name: a.email }))}
            kind="admins"
          />
        }
      />
      <QueryDataTable
        query={admins}
        list={list}
        testId="admins-table"
        rowKey={(a) => a.id}
        select={{
          selection,
          rowId: (a) => a.id,
          rowName: (a) => a.email,
          selectable: (a) => !a.is_default && a.id !== me,
        }}
        columns={[
          { key: 'name', header: t('admins.fullName'), sortKey: 'name', render: name },
          { key: 'email', header: t('admins.email'), sortKey: 'email', render: (a) => a.email },
          { key: 'role', header: t('admins.role'), sortKey: 'role', render: (a) => t(`admins.roles.${a.role}`) },
          {
            key: '2fa',
            header: t('admins.twoFactor'),
            render: (a) => (a['2fa_enabled'] ? t('admins.on') : t('admins.off')),
          },
        ]}
      />
      <Modal opened={opened} onClose={close} title={t('admins.new')} size="lg">
        <AdminCreateForm level={level} onDone={close} />
      </Modal>
    </>
  );
}

/** `/system/global_settings/administrators`: the system and sales administrators. */
export function SystemAdminsPage() {
  return <AdminsList level={{ kind: 'system' }} />;
}

/** `/msp/global_settings/administrators`: the MSP's administrators. */
export function MspAdminsPage() {
  return <AdminsList level={{ kind: 'msp', mspId: useMspId() }} />;
}

/** `/customer/settings/administrators`: the customer's administrators. */
export function CustomerAdminsPage() {
  return <AdminsList level={{ kind: 'customer', customerId: useCustomerId() }} />;
}
