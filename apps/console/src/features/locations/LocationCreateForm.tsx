import {
  LOCATION_TYPES,
  type LocationType,
  Messages,
  OTHER_LOCATION_TYPES,
  type OtherLocationType,
  otherLocationCreateSchema,
  staticIpLocationCreateSchema,
} from '@cordon/shared';
import { ActionIcon, Button, Group, Input, Select, Stack, Text, TextInput } from '@mantine/core';
import { type FormErrors, type UseFormReturnType, useForm } from '@mantine/form';
import { randomId } from '@mantine/hooks';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { FormActions } from '../../components/FormActions.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { showSuccessToast } from '../../components/toast.ts';
import { useCreateOtherLocationMutation, useCreateStaticIpLocationMutation, usePolicyChoicesQuery } from './api.ts';
import { locationPath } from './paths.ts';

/** The policy select's value for "Inherit default policy" (the wire's `policy_id: null`). */
export const INHERIT = 'inherit';

interface AddressValue {
  key: string;
  ip: string;
}

/** The values of the location form; each type uses the fields it has. */
export interface LocationFormValues {
  name: string;
  policy: string;
  addresses: AddressValue[];
  hostname: string;
  ip: string;
}

export const newAddress = (ip = ''): AddressValue => ({ key: randomId(), ip });

const policyId = (v: LocationFormValues) => (v.policy === INHERIT ? null : Number(v.policy));

/** Form values → the body of the type's create call. */
export function prepareLocation(type: LocationType, v: LocationFormValues): Record<string, unknown> {
  if (type === 'staticip') return { name: v.name, policy_id: policyId(v), addresses: v.addresses.map((a) => a.ip) };
  return {
    name: v.name,
    policy_id: policyId(v),
    ...(type === 'dynamicdns' ? { hostname: v.hostname } : {}),
    ...(type === 'dynamicip' && v.ip.trim() !== '' ? { ip: v.ip } : {}),
  };
}

/** The schema's `addresses.N` errors belong to the form's `addresses.N.ip` inputs. */
export function toFormErrors(errors: FormErrors): FormErrors {
  return Object.fromEntries(
    Object.entries(errors).map(([path, message]) => [/^addresses\.\d+$/.test(path) ? `${path}.ip` : path, message]),
  );
}

const validateStatic = schemaValidator(staticIpLocationCreateSchema);
const validateOther = schemaValidator(otherLocationCreateSchema);

/** Validates the form for `type` with the shared schemas (spec-notes §5 messages); a dynamic DNS location needs its host. */
export function validateLocation(type: LocationType, v: LocationFormValues, required: string): FormErrors {
  const body = prepareLocation(type, v);
  if (type === 'staticip') return toFormErrors(validateStatic(body));
  const errors = validateOther(body);
  if (type === 'dynamicdns' && v.hostname.trim() === '') errors['hostname'] = required;
  return errors;
}

/** The policy select: "Inherit default policy" and the customer's policies. */
export function PolicySelect({ customerId, ...props }: { customerId: number } & Record<string, unknown>) {
  const { t } = useTranslation();
  const policies = usePolicyChoicesQuery(customerId);
  return (
    <Select
      label={t('locations.policy')}
      data={[
        { value: INHERIT, label: t('locations.inherit') },
        ...(policies.data?.data ?? []).map((p) => ({ value: String(p.id), label: p.name })),
      ]}
      allowDeselect={false}
      {...props}
    />
  );
}

/** The type-dependent fields: static addresses, a dynamic-DNS host, a dynamic IP's first address. */
export function LocationTypeFields({
  type,
  form,
  editing = false,
}: {
  type: LocationType;
  /** On the id page: a dynamic IP's field sets the address now, rather than a first one. */
  editing?: boolean;
  form: UseFormReturnType<LocationFormValues, LocationFormValues, (values: LocationFormValues) => FormErrors>;
}) {
  const { t } = useTranslation();
  if (type === 'dynamicdns') {
    return (
      <TextInput
        label={t('locations.hostname')}
        placeholder="office.example.net"
        required
        description={t('locations.hostnameHelp')}
        {...form.getInputProps('hostname')}
      />
    );
  }
  if (type === 'dynamicip') {
    return (
      <TextInput
        label={editing ? t('locations.setIp') : t('locations.currentIp')}
        placeholder="203.0.113.7"
        description={editing ? t('locations.setIpHelp') : t('locations.currentIpHelp')}
        {...form.getInputProps('ip')}
      />
    );
  }
  if (type === 'roaming' || type === 'virtual') {
    return (
      <Text size="sm" c="dimmed">
        {t(`locations.keyHelp.${type}`)}
      </Text>
    );
  }
  const addresses = form.getValues().addresses;
  return (
    <>
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
    </>
  );
}

/**
 * The "New location" form (spec-notes §3 "Location"): the type first (static IP, dynamic IP, dynamic DNS,
 * roaming, virtual), then name, policy and the type's own fields; validated with the shared schemas.
 * A created location opens on its id page (keys and update URL are shown there).
 */
export function LocationCreateForm({ customerId, onDone }: { customerId: number; onDone: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [type, setType] = useState<LocationType>('staticip');
  const other: OtherLocationType = (OTHER_LOCATION_TYPES as readonly string[]).includes(type)
    ? (type as OtherLocationType)
    : 'virtual';
  const createStatic = useCreateStaticIpLocationMutation(customerId);
  const createOther = useCreateOtherLocationMutation(customerId, other);
  const form = useForm<LocationFormValues>({
    initialValues: { name: '', policy: INHERIT, addresses: [newAddress()], hostname: '', ip: '' },
    validate: (values) => validateLocation(type, values, Messages.required),
  });
  const pending = createStatic.isPending || createOther.isPending;
  const submit = form.onSubmit((values) => {
    const options = {
      onSuccess: (created: { id: number; type: LocationType }) => {
        showSuccessToast(t('locations.created'));
        onDone();
        navigate(locationPath(created));
      },
      onError: (error: unknown) => applyServerErrors(form, error, toFormErrors),
    };
    if (type === 'staticip') {
      createStatic.mutate(staticIpLocationCreateSchema.parse(prepareLocation(type, values)), options);
    } else {
      createOther.mutate(otherLocationCreateSchema.parse(prepareLocation(type, values)), options);
    }
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Select
          label={t('locations.type')}
          data={LOCATION_TYPES.map((v) => ({ value: v, label: t(`locations.types.${v}`) }))}
          value={type}
          allowDeselect={false}
          onChange={(v) => {
            setType((v ?? 'staticip') as LocationType);
            form.clearErrors();
          }}
        />
        <TextInput label={t('common.name')} required data-autofocus {...form.getInputProps('name')} />
        <PolicySelect customerId={customerId} {...form.getInputProps('policy')} />
        <LocationTypeFields type={type} form={form} />
        <FormActions onCancel={onDone} pending={pending} />
      </Stack>
    </form>
  );
}
