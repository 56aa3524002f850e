import { Divider, PasswordInput, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { useTranslation } from 'react-i18next';

/** Form values of an optional first administrator created together with an MSP or a customer. */
export interface AdminValues {
  admin_email: string;
  admin_name: string;
  admin_password: string;
}

/** The optional administrator fields (email, name, password) of the create forms. */
export function AdminFields<V extends AdminValues>({ form }: { form: UseFormReturnType<V> }) {
  const { t } = useTranslation();
  return (
    <>
      <Divider label={t('common.optionalAdmin')} labelPosition="left" mt="xs" />
      <TextInput
        label={t('common.adminEmail')}
        type="email"
        autoComplete="off"
        {...form.getInputProps('admin_email')}
      />
      <TextInput label={t('common.adminName')} autoComplete="off" {...form.getInputProps('admin_name')} />
      <PasswordInput
        label={t('common.adminPassword')}
        autoComplete="new-password"
        {...form.getInputProps('admin_password')}
      />
    </>
  );
}
