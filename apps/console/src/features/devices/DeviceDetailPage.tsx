import { type Device, deviceUpdateSchema, type PolicyMode } from '@cordon/shared';
import { Alert, Anchor, Button, Code, Group, Paper, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconArrowLeft, IconLock } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { ConfirmDeleteButton } from '../../components/ConfirmDeleteButton.tsx';
import { DeviceEffectivePolicyPanel } from '../../components/EffectivePolicyPanel.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { PhoneSetupPanel } from '../../components/PhoneSetupPanel.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import { AdvancedConfigPanel } from './AdvancedConfigPanel.tsx';
import {
  useDeleteDevicesMutation,
  useDeviceQuery,
  useResetDeviceAdvancedMutation,
  useSetDeviceAdvancedMutation,
  useUpdateDeviceMutation,
} from './api.ts';
import { lastContact } from './DevicesPage.tsx';
import { DeviceUsersPanel } from './DeviceUsersPanel.tsx';
import {
  NO_EXCEPTION,
  PolicyChoiceFields,
  type PolicyChoiceValues,
  policyChoiceFieldErrors,
  policyChoiceValues,
  preparePolicyChoice,
} from './PolicyChoiceFields.tsx';

const LIST = '/customer/environment/devices';

interface DeviceFormValues extends PolicyChoiceValues {
  name: string;
  tag: string;
}

const prepare = (v: DeviceFormValues) => ({ name: v.name, tag: v.tag, ...preparePolicyChoice(v) });
const validateSchema = schemaValidator(deviceUpdateSchema, prepare);

/** What the agent reports (spec-notes §3 "Device"): read only. */
function DeviceFacts({ device }: { device: Device }) {
  const { t, i18n } = useTranslation();
  const facts: Array<[string, string]> = [
    [t('devices.os'), device.os_type || '—'],
    [t('devices.version'), device.version || '—'],
    [t('devices.lastContact'), lastContact(device.last_contact, t('devices.never'), i18n.language)],
    [t('devices.lastIp'), device.last_ip || '—'],
    [t('devices.location'), device.location_name ?? '—'],
    [t('devices.dnsName'), device.dns_name || '—'],
    [t('devices.exception'), device.exception ?? '—'],
  ];
  return (
    <Paper withBorder p="md" radius="md">
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
        {facts.map(([label, value]) => (
          <Text key={label} size="sm">
            <Text span c="dimmed">
              {label}:
            </Text>{' '}
            {value}
          </Text>
        ))}
      </SimpleGrid>
      <Text size="sm" mt="sm" c="dimmed">
        {t('devices.key')}: <Code style={{ overflowWrap: 'anywhere' }}>{device.key}</Code>
      </Text>
    </Paper>
  );
}

/** The device's details and configuration; locked while a JSON configuration is present (spec-notes §4). */
function DeviceForm({ customerId, device }: { customerId: number; device: Device }) {
  const { t } = useTranslation();
  const update = useUpdateDeviceMutation(customerId, device.id);
  const locked = device.configuration !== null;
  const form = useForm<DeviceFormValues>({
    initialValues: {
      name: device.name,
      tag: device.tag,
      ...policyChoiceValues(device),
    },
    validate: (values) => {
      const errors = validateSchema(values);
      if (values.policy_mode === 'policy' && values.policy === '') errors['policy'] = t('devices.selectPolicy');
      return errors;
    },
  });
  // mutateAsync: the form remounts with the saved values, and a mutate() callback would be lost then.
  const submit = form.onSubmit((values) =>
    update.mutateAsync(deviceUpdateSchema.parse(prepare(values))).then(
      () => showSuccessToast(t('devices.saved')),
      (error: unknown) => applyServerErrors(form, error, policyChoiceFieldErrors),
    ),
  );
  return (
    <Paper withBorder p="md" radius="md">
      <form onSubmit={submit} noValidate>
        <Stack>
          <Title order={2} size="h4">
            {t('devices.configurationTitle')}
          </Title>
          {locked ? (
            <Alert color="yellow" icon={<IconLock size={16} />} role="status">
              {t('devices.locked')}
            </Alert>
          ) : null}
          <TextInput label={t('common.name')} required disabled={locked} {...form.getInputProps('name')} />
          <TextInput label={t('devices.tag')} disabled={locked} {...form.getInputProps('tag')} />
          <PolicyChoiceFields
            customerId={customerId}
            disabled={locked}
            inheritExceptionLabel={t('devices.inheritException')}
            mode={{
              value: form.values.policy_mode,
              onChange: (v) => form.setFieldValue('policy_mode', (v ?? 'default') as PolicyMode),
            }}
            policy={{
              value: form.values.policy,
              onChange: (v) => form.setFieldValue('policy', v ?? ''),
              error: form.errors['policy'],
            }}
            exception={{
              value: form.values.exception,
              onChange: (v) => form.setFieldValue('exception', v ?? NO_EXCEPTION),
              error: form.errors['exception'],
            }}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={update.isPending} disabled={locked}>
              {t('common.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

function DeviceDetail({ id }: { id: number }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const customerId = useCustomerId();
  const device = useDeviceQuery(customerId, id);
  const setAdvanced = useSetDeviceAdvancedMutation(customerId, id);
  const resetAdvanced = useResetDeviceAdvancedMutation(customerId, id);
  const remove = useDeleteDevicesMutation(customerId);
  usePageSubtitle(device.data?.name);
  return (
    <>
      <Anchor component={Link} to={LIST} size="sm">
        <IconArrowLeft size={14} style={{ verticalAlign: 'middle' }} /> {t('devices.back')}
      </Anchor>
      <PageHeader />
      <QueryState query={device}>
        {(d) => (
          <Stack maw={760}>
            <DeviceFacts device={d} />
            <DeviceEffectivePolicyPanel customerId={customerId} deviceId={d.id} />
            <PhoneSetupPanel customerId={customerId} secretKey={d.key} subject={{ kind: 'device', deviceId: d.id }} />
            <DeviceForm key={JSON.stringify(d)} customerId={customerId} device={d} />
            <DeviceUsersPanel customerId={customerId} deviceId={d.id} />
            <AdvancedConfigPanel
              key={d.configuration ?? ''}
              configuration={d.configuration}
              lockNote={t('devices.deviceAdvancedNote')}
              pending={setAdvanced.isPending || resetAdvanced.isPending}
              save={(configuration) => setAdvanced.mutateAsync({ configuration })}
              reset={() => resetAdvanced.mutateAsync(undefined)}
            />
            <Group>
              <ConfirmDeleteButton
                label={t('common.delete')}
                title={t('devices.confirmDeleteTitle')}
                text={t('devices.confirmDeleteText', { name: d.name })}
                loading={remove.isPending}
                onConfirm={async () => {
                  const outcome = await remove.run([d.id]);
                  if (outcome.succeeded.length === 1) {
                    showSuccessToast(t('devices.deleted'));
                    navigate(LIST);
                  }
                }}
              />
            </Group>
          </Stack>
        )}
      </QueryState>
    </>
  );
}

/** `/customer/environment/devices/{id}` (spec-notes §2 "device id"): facts, configuration, JSON configuration, delete. */
export function DeviceDetailPage() {
  const id = Number(useParams()['id']);
  if (!Number.isInteger(id) || id <= 0) return <Navigate to="/404" replace />;
  return <DeviceDetail key={id} id={id} />;
}
