import { mspCreateSchema } from '@cordon/shared';
import { Button, Group, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { showSuccessToast } from '../../app/errors/responseHandler.ts';
import { AdminFields, type AdminValues } from '../../components/AdminFields.tsx';
import { applyServerErrors, blankToUndefined, schemaValidator } from '../../components/form.ts';
import { SYSTEM_TIMEZONE, TimezoneSelect, timezoneToWire } from '../../components/TimezoneSelect.tsx';
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

/** The "New MSP" form (spec §3 "MSP"; `POST /msp` with `mspCreateSchema`). */
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

  const submit = form.onSubmit((values) => {
    create.mutate(mspCreateSchema.parse(prepare(values)), {
      onSuccess: () => {
        showSuccessToast(t('msps.created'));
        onDone();
      },
      onError: (error) => applyServerErrors(form, error),
    });
  });

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('msps.formName')} required data-autofocus {...form.getInputProps('name')} />
        <TextInput label={t('msps.company')} required {...form.getInputProps('company_name')} />
        <TextInput label={t('msps.license')} {...form.getInputProps('license')} />
        <TimezoneSelect {...form.getInputProps('timezone')} />
        <AdminFields form={form} />
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onDone}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={create.isPending}>
            {t('common.create')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
