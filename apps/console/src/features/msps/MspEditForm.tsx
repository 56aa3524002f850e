import { type Msp, mspUpdateSchema, parseLicenceLimit } from '@cordon/shared';
import { Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
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
  // A licence below the customers the MSP has is allowed (they keep working) but asked for first:
  // the MSP cannot add a customer until it is back under the limit.
  const [belowUse, setBelowUse] = useState<MspEditValues | null>(null);
  const save = (values: MspEditValues) =>
    update.mutateAsync(mspUpdateSchema.parse(prepare(values))).then(
      () => {
        showSuccessToast(t('msps.saved'));
        onDone();
      },
      (error: unknown) => applyServerErrors(form, error),
    );
  const submit = form.onSubmit((values) => {
    const limit = parseLicenceLimit(values.license);
    const lowered = limit !== null && limit < msp.customers_count && values.license.trim() !== msp.license.trim();
    if (lowered) setBelowUse(values);
    else void save(values);
  });
  const newLimit = belowUse ? parseLicenceLimit(belowUse.license) : null;
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('msps.formName')} required data-autofocus {...form.getInputProps('name')} />
        <TextInput label={t('msps.company')} required {...form.getInputProps('company_name')} />
        <TextInput label={t('msps.license')} description={t('msps.licenseHelp')} {...form.getInputProps('license')} />
        <TimezoneSelect {...form.getInputProps('timezone')} />
        <FormActions onCancel={onDone} pending={update.isPending} submitLabel={t('common.save')} />
      </Stack>
      <ConfirmDialog
        opened={belowUse !== null}
        onClose={() => setBelowUse(null)}
        title={t('msps.licenceBelowUseTitle')}
        text={t('msps.licenceBelowUseText', { name: msp.name, count: msp.customers_count, limit: newLimit })}
        confirmLabel={t('msps.licenceBelowUseConfirm')}
        loading={update.isPending}
        onConfirm={() => (belowUse ? save(belowUse) : Promise.resolve())}
      />
    </form>
  );
}
