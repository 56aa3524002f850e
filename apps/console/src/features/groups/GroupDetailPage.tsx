import { Anchor, Group, List, Paper, Stack, Text, Title } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { ConfirmDeleteButton } from '../../components/ConfirmDeleteButton.tsx';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useMultiDeleteToasts } from '../../components/RowSelection.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import {
  groupMoveOptions,
  useDeleteGroupsMutation,
  useGroupDependantsFetcher,
  useGroupQuery,
  useGroupsQuery,
  useMembersQuery,
  useUpdateGroupMutation,
} from './api.ts';
import { GroupForm } from './GroupForm.tsx';

const LIST = '/customer/environment/groups';

/** The group's members (internal users), each linking to its page. */
function Members({ customerId, groupId }: { customerId: number; groupId: number }) {
  const { t } = useTranslation();
  const members = useMembersQuery(customerId, groupId);
  return (
    <Paper withBorder p="md" radius="md">
      <Title order={2} size="h4" mb="sm">
        {t('groups.members')}
      </Title>
      <QueryState query={members}>
        {(page) =>
          page.data.length === 0 ? (
            <Text c="dimmed">{t('groups.noMembers')}</Text>
          ) : (
            <List>
              {page.data.map((u) => (
                <List.Item key={u.id}>
                  <Anchor component={Link} to={`/customer/environment/users/${u.id}`}>
                    {u.name}
                  </Anchor>
                </List.Item>
              ))}
            </List>
          )
        }
      </QueryState>
    </Paper>
  );
}

function GroupDetail({ id }: { id: number }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const customerId = useCustomerId();
  const group = useGroupQuery(customerId, id);
  const update = useUpdateGroupMutation(customerId, id);
  const remove = useDeleteGroupsMutation(customerId);
  const fetchDependants = useGroupDependantsFetcher(customerId);
  const others = useGroupsQuery(customerId, { limit: 10_000, offset: 0, sortkey: 'name', sortdir: 'asc', filter: '' });
  const toastResult = useMultiDeleteToasts();
  usePageSubtitle(group.data?.name);
  return (
    <>
      <Anchor component={Link} to={LIST} size="sm">
        <IconArrowLeft size={14} style={{ verticalAlign: 'middle' }} /> {t('groups.back')}
      </Anchor>
      <PageHeader />
      <QueryState query={group}>
        {(g) => (
          <Stack maw={720}>
            <Text c="dimmed">{t('groups.rankOf', { weight: g.weight })}</Text>
            <Paper withBorder p="md" radius="md">
              <GroupForm
                key={g.last_modified}
                customerId={customerId}
                group={g}
                pending={update.isPending}
                submit={(body) => update.mutateAsync(body).then(() => showSuccessToast(t('groups.saved')))}
              />
            </Paper>
            <Members customerId={customerId} groupId={g.id} />
            <Group>
              <ConfirmDeleteButton
                label={t('common.delete')}
                title={t('groups.confirmDeleteTitle')}
                text={t('groups.confirmDeleteText', { name: g.name })}
                item={{ id: g.id, name: g.name }}
                kind="groups"
                fetchDependants={fetchDependants}
                move={{
                  label: t('safeDelete.moveGroup'),
                  options: groupMoveOptions(others.data?.data ?? [], [g.id], t('safeDelete.detachMembers')),
                }}
                loading={remove.isPending}
                onConfirm={async (choice) => {
                  const outcome = await remove.run([g.id], choice.moveTo);
                  if (outcome.failed.length > 0) {
                    toastResult({ deleted: 0, failed: outcome.failed.map((f) => ({ name: g.name, error: f.error })) });
                  }
                  if (outcome.succeeded.length === 1) {
                    showSuccessToast(t('groups.deleted'));
                    navigate(LIST);
                  }
                }}
              />
            </Group>
          </Stack>
        )}
      </QueryState>
    </>
  );
}

/** `/customer/environment/groups/{id}` (spec-notes §2 "group id"): edit, members, delete. */
export function GroupDetailPage() {
  const id = Number(useParams()['id']);
  if (!Number.isInteger(id) || id <= 0) return <Navigate to="/404" replace />;
  return <GroupDetail key={id} id={id} />;
}
