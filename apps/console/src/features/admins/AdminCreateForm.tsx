import { adminCreateSchema } from '@cordon/shared';
import { Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { FormActions } from '../../components/FormActions.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { showErrorToast, showSuccessToast } from '../../components/toast.ts';
import { type AdminLevel, levelQuery, useCreateAdminMutation } from './api.ts';

interface AdminFormValues {
  email: string;
  full_name: string;
  role: string;
}

/**
 * "New administrator" (spec-notes §7 `POST /admin/`): e-mail and full name, and at system level the role
 * (system or sales). The new admin gets an invitation mail to choose its password.
 */
export function AdminCreateForm({ level, onDone }: { level: AdminLevel; onDone: () => void }) {
  const { t } = useTranslation();
  const create = useCreateAdminMutation();
  const prepare = (v: AdminFormValues) => ({
    email: v.email,
    full_name: v.full_name,
    ...levelQuery(level),
    ...(level.kind === 'system' ? { role: Number(v.role) } : {}),
  });
  const form = useForm<AdminFormValues>({
    initialValues: { email: '', full_name: '', role: '1' },
    validate: schemaValidator(adminCreateSchema, prepare),
  });
  const submit = form.onSubmit((values) => {
    create.mutate(adminCreateSchema.parse(prepare(values)), {
      onSuccess: (admin) => {
        if (admin.invitation_sent) showSuccessToast(t('admins.invited', { email: admin.email }));
        else showErrorToast(t('admins.invitationNotSent'));
        onDone();
      },
      onError: (error) => applyServerErrors(form, error),
    });
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('admins.email')} type="email" required data-autofocus {...form.getInputProps('email')} />
        <TextInput label={t('admins.fullName')} required {...form.getInputProps('full_name')} />
        {level.kind === 'system' ? (
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
        <FormActions onCancel={onDone} pending={create.isPending} submitLabel={t('admins.invite')} />
      </Stack>
    </form>
  );
}
