import { customerCreateSchema, type FilteringLevel } from '@cordon/shared';
import { Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { AdminFields, type AdminValues } from '../../components/AdminFields.tsx';
import { FilteringLevelSelect } from '../../components/FilteringLevelSelect.tsx';
import { FormActions } from '../../components/FormActions.tsx';
import { blankToUndefined, schemaValidator, submitThrough } from '../../components/form.ts';
import { SYSTEM_TIMEZONE, TimezoneSelect, timezoneToWire } from '../../components/TimezoneSelect.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCreateCustomerMutation } from './api.ts';

interface CustomerFormValues extends AdminValues {
  accountName: string;
  timezone: string;
  default_level: FilteringLevel;
}

/** The "New customer" form (spec-notes §3 "Customer account"; `POST /users/` with `customerCreateSchema`). */
export function CustomerCreateForm({ mspId, onDone }: { mspId: number; onDone: () => void }) {
  const { t } = useTranslation();
  const create = useCreateCustomerMutation();
  const prepare = (values: CustomerFormValues) => ({
    ...blankToUndefined(values),
    msp_id: mspId,
    timezone: timezoneToWire(values.timezone),
    default_level: values.default_level,
  });
  const form = useForm<CustomerFormValues>({
    initialValues: {
      accountName: '',
      timezone: SYSTEM_TIMEZONE,
      default_level: 'low',
      admin_email: '',
      admin_name: '',
      admin_password: '',
    },
    validate: schemaValidator(customerCreateSchema, prepare),
  });

  const submit = submitThrough({
    form,
    schema: customerCreateSchema,
    prepare,
    mutation: create,
    onSuccess: () => {
      showSuccessToast(t('customers.created'));
      onDone();
    },
  });

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('customers.accountName')} required data-autofocus {...form.getInputProps('accountName')} />
        <TimezoneSelect {...form.getInputProps('timezone')} />
        <FilteringLevelSelect label={t('customers.defaultLevel')} {...form.getInputProps('default_level')} />
        <AdminFields form={form} />
        <FormActions onCancel={onDone} pending={create.isPending} />
      </Stack>
    </form>
  );
}
