import { type InternalUser, internalUserUpdateSchema } from '@cordon/shared';
import { Anchor, Button, Group, MultiSelect, Paper, Select, SimpleGrid, Stack, Text, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconArrowLeft } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { ConfirmDeleteButton } from '../../components/ConfirmDeleteButton.tsx';
import { UserEffectivePolicyPanel } from '../../components/EffectivePolicyPanel.tsx';
import { applyServerErrors } from '../../components/form.ts';
import { useFormat } from '../../components/format.ts';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import {
  useDeleteUsersMutation,
  useGroupChoicesQuery,
  usePolicyChoicesQuery,
  useUpdateUserMutation,
  useUserQuery,
} from './api.ts';

const LIST = '/customer/environment/users';
/** The policy select's value for "inherit group or default policy" (the wire's `policyid: null`). */
const INHERIT = 'inherit';

interface UserValues {
  policy: string;
  description: string;
  groups: string[];
}

/** The user's own policy, description and groups (spec-notes §7 `POST /users/{id}/users/{userId}`). */
function UserForm({ customerId, user }: { customerId: number; user: InternalUser }) {
  const { t } = useTranslation();
  const update = useUpdateUserMutation(customerId, user.id);
  const policies = usePolicyChoicesQuery(customerId);
  const groups = useGroupChoicesQuery(customerId);
  const form = useForm<UserValues>({
    initialValues: {
      policy: user.policyid === null ? INHERIT : String(user.policyid),
      description: user.description,
      groups: user.group_ids.map(String),
    },
  });
  const submit = form.onSubmit((v) => {
    const body = {
      policyid: v.policy === INHERIT ? null : Number(v.policy),
      description: v.description,
      group_ids: v.groups.map(Number),
    };
    const parsed = internalUserUpdateSchema.safeParse(body);
    if (!parsed.success) {
      form.setErrors(
        Object.fromEntries(
          parsed.error.issues.map((i) => [String(i.path[0]) === 'description' ? 'description' : 'groups', i.message]),
        ),
      );
      return;
    }
    // mutateAsync: the form remounts with the saved values, and a mutate() callback would be lost then.
    update.mutateAsync(parsed.data).then(
      () => showSuccessToast(t('internalUsers.saved')),
      (error: unknown) =>
        applyServerErrors(form, error, (e) =>
          Object.fromEntries(
            Object.entries(e).map(([k, m]) => [k === 'policyid' ? 'policy' : k === 'group_ids' ? 'groups' : k, m]),
          ),
        ),
    );
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Select
          label={t('internalUsers.policy')}
          data={[
            { value: INHERIT, label: t('internalUsers.inherit') },
            ...(policies.data?.data ?? []).map((p) => ({ value: String(p.id), label: p.name })),
          ]}
          allowDeselect={false}
          {...form.getInputProps('policy')}
        />
        <MultiSelect
          label={t('internalUsers.groups')}
          description={t('internalUsers.groupsHelp')}
          data={(groups.data?.data ?? []).map((g) => ({ value: String(g.id), label: g.name }))}
          searchable
          {...form.getInputProps('groups')}
        />
        <Textarea label={t('common.description')} autosize minRows={2} {...form.getInputProps('description')} />
        <Group justify="flex-end">
          <Button type="submit" loading={update.isPending}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function UserDetail({ id }: { id: number }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const navigate = useNavigate();
  const customerId = useCustomerId();
  const user = useUserQuery(customerId, id);
  const remove = useDeleteUsersMutation(customerId);
  usePageSubtitle(user.data?.name);
  return (
    <>
      <Anchor component={Link} to={LIST} size="sm">
        <IconArrowLeft size={14} style={{ verticalAlign: 'middle' }} /> {t('internalUsers.back')}
      </Anchor>
      <PageHeader />
      <QueryState query={user}>
        {(u) => (
          <Stack maw={720}>
            <Paper withBorder p="md" radius="md">
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
                <Text size="sm">
                  <Text span c="dimmed">
                    {t('internalUsers.lastLogin')}:
                  </Text>{' '}
                  {u.last_login ? fmt.dateTime(u.last_login) : '—'}
                </Text>
                <Text size="sm">
                  <Text span c="dimmed">
                    {t('internalUsers.lastLoginIp')}:
                  </Text>{' '}
                  {u.last_login_ip || '—'}
                </Text>
                <Text size="sm">
                  <Text span c="dimmed">
                    {t('internalUsers.group')}:
                  </Text>{' '}
                  {u.group ?? '—'}
                </Text>
                <Text size="sm">
                  <Text span c="dimmed">
                    {t('internalUsers.role')}:
                  </Text>{' '}
                  {u.role}
                </Text>
              </SimpleGrid>
            </Paper>
            <Paper withBorder p="md" radius="md">
              <UserForm key={JSON.stringify(u)} customerId={customerId} user={u} />
            </Paper>
            <UserEffectivePolicyPanel customerId={customerId} userId={u.id} />
            <Group>
              <ConfirmDeleteButton
                label={t('common.delete')}
                title={t('internalUsers.confirmDeleteTitle')}
                text={t('internalUsers.confirmDeleteText', { name: u.name })}
                loading={remove.isPending}
                onConfirm={async () => {
                  const outcome = await remove.run([u.id]);
                  if (outcome.succeeded.length === 1) {
                    showSuccessToast(t('internalUsers.deleted'));
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

/** `/customer/environment/users/{id}` (spec-notes §2 "user id"): last login, policy, groups, description, delete. */
export function UserDetailPage() {
  const id = Number(useParams()['id']);
  if (!Number.isInteger(id) || id <= 0) return <Navigate to="/404" replace />;
  return <UserDetail key={id} id={id} />;
}
