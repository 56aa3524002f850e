import { mspCreateSchema } from '@cordon/shared';
import { Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { AdminFields, type AdminValues } from '../../components/AdminFields.tsx';
import { FormActions } from '../../components/FormActions.tsx';
import { blankToUndefined, schemaValidator, submitThrough } from '../../components/form.ts';
import { SYSTEM_TIMEZONE, TimezoneSelect, timezoneToWire } from '../../components/TimezoneSelect.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCreateMspMutation } from './api.ts';

interface MspFormValues extends AdminValues {
  name: string;
  company_name: string;
  license: string;
  timezone: string;
}

const prepare = (values: MspFormValues) => {
  const v = blankToUndefined(values);
  return { ...v, license: values.license, timezone: timezoneToWire(values.timezone) };
};

/** The "New MSP" form (spec-notes §3 "MSP"; `POST /msp` with `mspCreateSchema`). */
export function MspCreateForm({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const create = useCreateMspMutation();
  const form = useForm<MspFormValues>({
    initialValues: {
      name: '',
      company_name: '',
      license: '',
      timezone: SYSTEM_TIMEZONE,
      admin_email: '',
      admin_name: '',
      admin_password: '',
    },
    validate: schemaValidator(mspCreateSchema, prepare),
  });

  const submit = submitThrough({
    form,
    schema: mspCreateSchema,
    prepare,
    mutation: create,
    onSuccess: () => {
      showSuccessToast(t('msps.created'));
      onDone();
    },
  });

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('msps.formName')} required data-autofocus {...form.getInputProps('name')} />
        <TextInput label={t('msps.company')} required {...form.getInputProps('company_name')} />
        <TextInput label={t('msps.license')} {...form.getInputProps('license')} />
        <TimezoneSelect {...form.getInputProps('timezone')} />
        <AdminFields form={form} />
        <FormActions onCancel={onDone} pending={create.isPending} />
      </Stack>
    </form>
  );
}
