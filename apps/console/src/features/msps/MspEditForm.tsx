import { type Msp, mspUpdateSchema } from '@cordon/shared';
import { Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { FormActions } from '../../components/FormActions.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { SYSTEM_TIMEZONE, TimezoneSelect, timezoneToWire } from '../../components/TimezoneSelect.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useUpdateMspMutation } from './api.ts';

interface MspEditValues {
  name: string;
  company_name: string;
  license: string;
  timezone: string;
}

const prepare = (v: MspEditValues) => ({ ...v, timezone: timezoneToWire(v.timezone) });

/** "Edit MSP" (spec-notes §3 "MSP"; `PUT /msp/{id}`): name, company, licence (a number limits its customers) and time zone. */
export function MspEditForm({ msp, onDone }: { msp: Msp; onDone: () => void }) {
  const { t } = useTranslation();
  const update = useUpdateMspMutation(msp.id);
  const form = useForm<MspEditValues>({
    initialValues: {
      name: msp.name,
      company_name: msp.company_name,
      license: msp.license,
      timezone: msp.timezone || SYSTEM_TIMEZONE,
    },
    validate: schemaValidator(mspUpdateSchema, prepare),
  });
  const submit = form.onSubmit((values) =>
    update.mutate(mspUpdateSchema.parse(prepare(values)), {
      onSuccess: () => {
        showSuccessToast(t('msps.saved'));
        onDone();
      },
      onError: (error) => applyServerErrors(form, error),
    }),
  );
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('msps.formName')} required data-autofocus {...form.getInputProps('name')} />
        <TextInput label={t('msps.company')} required {...form.getInputProps('company_name')} />
        <TextInput label={t('msps.license')} description={t('msps.licenseHelp')} {...form.getInputProps('license')} />
        <TimezoneSelect {...form.getInputProps('timezone')} />
        <FormActions onCancel={onDone} pending={update.isPending} submitLabel={t('common.save')} />
      </Stack>
    </form>
  );
}
