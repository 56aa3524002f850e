import { staticIpLocationCreateSchema } from '@cordon/shared';
import { ActionIcon, Button, Group, Input, Select, Stack, TextInput } from '@mantine/core';
import { type FormErrors, useForm } from '@mantine/form';
import { randomId } from '@mantine/hooks';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { FormActions } from '../../components/FormActions.tsx';
import { schemaValidator, submitThrough } from '../../components/form.ts';
import { showSuccessToast } from '../../components/toast.ts';
import { useCreateStaticIpLocationMutation, usePolicyChoicesQuery } from './api.ts';

/** The policy select's value for "Inherit default policy" (the wire's `policy_id: null`). */
const INHERIT = 'inherit';

interface AddressValue {
  key: string;
  ip: string;
}

interface LocationFormValues {
  name: string;
  policy: string;
  addresses: AddressValue[];
}

const newAddress = (): AddressValue => ({ key: randomId(), ip: '' });

const prepare = (values: LocationFormValues) => ({
  name: values.name,
  policy_id: values.policy === INHERIT ? null : Number(values.policy),
  addresses: values.addresses.map((a) => a.ip),
});

/** The schema's `addresses.N` errors belong to the form's `addresses.N.ip` inputs. */
function toFormErrors(errors: FormErrors): FormErrors {
  return Object.fromEntries(
    Object.entries(errors).map(([path, message]) => [/^addresses\.\d+$/.test(path) ? `${path}.ip` : path, message]),
  );
}

const validateSchema = schemaValidator(staticIpLocationCreateSchema, prepare);

/** The "New static IP location" form (spec §3 "Location"; `staticIpLocationCreateSchema`). */
export function LocationCreateForm({ customerId, onDone }: { customerId: number; onDone: () => void }) {
  const { t } = useTranslation();
  const create = useCreateStaticIpLocationMutation(customerId);
  const policies = usePolicyChoicesQuery(customerId);
  const form = useForm<LocationFormValues>({
    initialValues: { name: '', policy: INHERIT, addresses: [newAddress()] },
    validate: (values) => toFormErrors(validateSchema(values)),
  });

  const submit = submitThrough({
    form,
    schema: staticIpLocationCreateSchema,
    prepare,
    mutation: create,
    onSuccess: () => {
      showSuccessToast(t('locations.created'));
      onDone();
    },
    toFormErrors,
  });

  const policyOptions = [
    { value: INHERIT, label: t('locations.inherit') },
    ...(policies.data?.data ?? []).map((p) => ({ value: String(p.id), label: p.name })),
  ];
  const addresses = form.getValues().addresses;

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('common.name')} required data-autofocus {...form.getInputProps('name')} />
        <Select
          label={t('locations.policy')}
          data={policyOptions}
          allowDeselect={false}
          {...form.getInputProps('policy')}
        />
        {addresses.map((address, i) => (
          <Group key={address.key} align="flex-start" wrap="nowrap" gap="xs">
            <TextInput
              label={t('locations.address', { n: i + 1 })}
              placeholder="192.0.2.0/24"
              required={i === 0}
              style={{ flex: 1 }}
              {...form.getInputProps(`addresses.${i}.ip`)}
            />
            {addresses.length > 1 ? (
              <ActionIcon
                variant="subtle"
                color="red"
                mt={28}
                aria-label={t('locations.removeAddress', { n: i + 1 })}
                onClick={() => form.removeListItem('addresses', i)}
              >
                <IconTrash size={16} />
              </ActionIcon>
            ) : null}
          </Group>
        ))}
        {form.errors['addresses'] ? <Input.Error role="alert">{form.errors['addresses']}</Input.Error> : null}
        <Group>
          <Button
            variant="subtle"
            size="compact-sm"
            leftSection={<IconPlus size={14} />}
            onClick={() => form.insertListItem('addresses', newAddress())}
          >
            {t('locations.addAddress')}
          </Button>
        </Group>
        <FormActions onCancel={onDone} pending={create.isPending} />
      </Stack>
    </form>
  );
}
