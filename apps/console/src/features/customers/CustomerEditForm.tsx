import { type Customer, customerUpdateSchema } from '@cordon/shared';
import { Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { FormActions } from '../../components/FormActions.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { SYSTEM_TIMEZONE, TimezoneSelect, timezoneToWire } from '../../components/TimezoneSelect.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useUpdateCustomerMutation } from './api.ts';

interface CustomerEditValues {
  accountName: string;
  timezone: string;
}

const prepare = (v: CustomerEditValues) => ({ accountName: v.accountName, timezone: timezoneToWire(v.timezone) });

/** "Edit customer" (spec-notes §3 "Customer account"; `POST /users/{id}`): account name and time zone ("Use System Default"). */
export function CustomerEditForm({ customer, onDone }: { customer: Customer; onDone: () => void }) {
  const { t } = useTranslation();
  const update = useUpdateCustomerMutation(customer.id);
  const form = useForm<CustomerEditValues>({
    initialValues: { accountName: customer.accountName, timezone: customer.timezone || SYSTEM_TIMEZONE },
    validate: schemaValidator(customerUpdateSchema, prepare),
  });
  const submit = form.onSubmit((values) =>
    update.mutate(customerUpdateSchema.parse(prepare(values)), {
      onSuccess: () => {
        showSuccessToast(t('customers.saved'));
        onDone();
      },
      onError: (error) => applyServerErrors(form, error),
    }),
  );
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('customers.accountName')} required data-autofocus {...form.getInputProps('accountName')} />
        <TimezoneSelect {...form.getInputProps('timezone')} />
        <FormActions onCancel={onDone} pending={update.isPending} submitLabel={t('common.save')} />
      </Stack>
    </form>
  );
}
