import { type Admin, adminUpdateSchema } from '@cordon/shared';
import { Anchor, Badge, Button, Group, Paper, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconArrowLeft, IconMail } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { ConfirmDeleteButton } from '../../components/ConfirmDeleteButton.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { useFormat } from '../../components/format.ts';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useSession } from '../../session/context.ts';
import { ADMIN_LIST_PATHS } from './AdminsPage.tsx';
import {
  useAdminQuery,
  useDeleteAdminMutation,
  useResendInvitationMutation,
  useResetTwoFactorMutation,
  useUpdateAdminMutation,
} from './api.ts';

type Level = keyof typeof ADMIN_LIST_PATHS;

interface EditValues {
  full_name: string;
  email: string;
  role: string;
}

/** Name, e-mail and (system and sales admins, by a system admin) the role; never one's own role. */
function AdminEditForm({ admin, level, self }: { admin: Admin; level: Level; self: boolean }) {
  const { t } = useTranslation();
  const update = useUpdateAdminMutation(admin.id);
  const canChangeRole = level === 'system' && !self && !admin.is_default;
  const prepare = (v: EditValues) => ({
    full_name: v.full_name,
    email: v.email,
    ...(canChangeRole ? { role: Number(v.role) } : {}),
  });
  const form = useForm<EditValues>({
    initialValues: { full_name: admin.full_name, email: admin.email, role: String(admin.role) },
    validate: schemaValidator(adminUpdateSchema, prepare),
  });
  const submit = form.onSubmit((values) =>
    update.mutate(adminUpdateSchema.parse(prepare(values)), {
      onSuccess: () => showSuccessToast(t('admins.saved')),
      onError: (error) => applyServerErrors(form, error),
    }),
  );
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('admins.fullName')} required {...form.getInputProps('full_name')} />
        <TextInput label={t('admins.email')} type="email" required {...form.getInputProps('email')} />
        {canChangeRole ? (
          <Select
            label={t('admins.role')}
            allowDeselect={false}
            data={[
              { value: '1', label: t('admins.roles.1') },
              { value: '2', label: t('admins.roles.2') },
            ]}
            {...form.getInputProps('role')}
          />
        ) : null}
        <Group justify="flex-end">
          <Button type="submit" loading={update.isPending}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Invitation, 2FA reset and delete: each where the rules allow it. */
function AdminActions({ admin, level, self }: { admin: Admin; level: Level; self: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const invite = useResendInvitationMutation(admin.id);
  const reset = useResetTwoFactorMutation(admin.id);
  const remove = useDeleteAdminMutation(admin.id);
  return (
    <Group wrap="wrap">
      {admin.pending ? (
        <Button
          variant="light"
          leftSection={<IconMail size={16} aria-hidden />}
          loading={invite.isPending}
          onClick={() =>
            invite.mutate(undefined, { onSuccess: () => showSuccessToast(t('admins.invited', { email: admin.email })) })
          }
        >
          {t('admins.resendInvitation')}
        </Button>
      ) : null}
      {admin['2fa_enabled'] && !self ? (
        <ConfirmDeleteButton
          label={t('admins.resetTwoFactor')}
          confirmLabel={t('admins.resetTwoFactor')}
          title={t('admins.resetTwoFactor')}
          text={t('admins.resetTwoFactorText', { email: admin.email })}
          loading={reset.isPending}
          onConfirm={() => reset.mutateAsync(undefined).then(() => showSuccessToast(t('admins.twoFactorReset')))}
        />
      ) : null}
      {admin.is_default || self ? null : (
        <ConfirmDeleteButton
          label={t('common.delete')}
          title={t('admins.confirmDeleteTitle')}
          text={t('admins.confirmDeleteText', { email: admin.email })}
          loading={remove.isPending}
          onConfirm={() =>
            remove.mutateAsync(undefined).then(() => {
              showSuccessToast(t('admins.deleted'));
              void navigate(ADMIN_LIST_PATHS[level]);
            })
          }
        />
      )}
    </Group>
  );
}

function AdminDetail({ id, level }: { id: number; level: Level }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { claims } = useSession();
  const admin = useAdminQuery(id);
  usePageSubtitle(admin.data?.full_name);
  const self = claims !== null && Number(claims.sub) === id;
  return (
    <>
      <Anchor component={Link} to={ADMIN_LIST_PATHS[level]} size="sm">
        <IconArrowLeft size={14} style={{ verticalAlign: 'middle' }} /> {t('admins.back')}
      </Anchor>
      <PageHeader />
      <QueryState query={admin}>
        {(a) => (
          <Stack maw={720}>
            <Paper withBorder p="md" radius="md">
              <Table variant="vertical" withRowBorders={false}>
                <Table.Tbody>
                  <Table.Tr>
                    <Table.Th w={200}>{t('admins.role')}</Table.Th>
                    <Table.Td>
                      {t(`admins.roles.${a.role}`)}{' '}
                      {a.is_default ? (
                        <Badge size="xs" variant="light">
                          {t('admins.primary')}
                        </Badge>
                      ) : null}
                    </Table.Td>
                  </Table.Tr>
                  <Table.Tr>
                    <Table.Th>{t('admins.twoFactor')}</Table.Th>
                    <Table.Td data-testid="admin-2fa">{a['2fa_enabled'] ? t('admins.on') : t('admins.off')}</Table.Td>
                  </Table.Tr>
                  <Table.Tr>
                    <Table.Th>{t('admins.status')}</Table.Th>
                    <Table.Td>{a.pending ? t('admins.pending') : t('admins.registered')}</Table.Td>
                  </Table.Tr>
                  <Table.Tr>
                    <Table.Th>{t('admins.lastLogin')}</Table.Th>
                    <Table.Td>{a.last_login_at ? fmt.dateTime(a.last_login_at) : t('admins.never')}</Table.Td>
                  </Table.Tr>
                </Table.Tbody>
              </Table>
              <Text size="sm" c="dimmed" mt="xs">
                {a.is_default ? t('admins.primaryHint') : ''}
              </Text>
              <AdminActions admin={a} level={level} self={self} />
            </Paper>
            <Paper withBorder p="md" radius="md">
              <AdminEditForm key={`${a.id}:${a.email}:${a.full_name}:${a.role}`} admin={a} level={level} self={self} />
            </Paper>
          </Stack>
        )}
      </QueryState>
    </>
  );
}

function useAdminIdParam(): number | null {
  const id = Number(useParams().id);
  return Number.isInteger(id) && id > 0 ? id : null;
}

/** `/system/global_settings/administrators/{id}` (spec-notes §2 "admin id"). */
export function SystemAdminDetailPage() {
  const id = useAdminIdParam();
  return id === null ? <Navigate to="/404" replace /> : <AdminDetail id={id} level="system" />;
}

/** `/msp/global_settings/administrators/{id}` (spec-notes §2 "admin id"). */
export function MspAdminDetailPage() {
  const id = useAdminIdParam();
  return id === null ? <Navigate to="/404" replace /> : <AdminDetail id={id} level="msp" />;
}

/** `/customer/settings/administrators/{id}` (spec-notes §2 "admin id"). */
export function CustomerAdminDetailPage() {
  const id = useAdminIdParam();
  return id === null ? <Navigate to="/404" replace /> : <AdminDetail id={id} level="customer" />;
}
