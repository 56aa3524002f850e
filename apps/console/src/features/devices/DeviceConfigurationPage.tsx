import { type DeviceConfigAnswer, deviceConfigUpdateSchema, type PolicyMode } from '@cordon/shared';
import { Button, Code, CopyButton, Group, Modal, Paper, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { IconCopy, IconKey } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { applyServerErrors } from '../../components/form.ts';
import { useFormat } from '../../components/format.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import { AdvancedConfigPanel } from './AdvancedConfigPanel.tsx';
import {
  useDeviceConfigQuery,
  useRegenerateInstallKeyMutation,
  useResetCustomerAdvancedMutation,
  useSetCustomerAdvancedMutation,
  useUpdateDeviceConfigMutation,
} from './api.ts';
import {
  NO_EXCEPTION,
  PolicyChoiceFields,
  type PolicyChoiceValues,
  policyChoiceFieldErrors,
  policyChoiceValues,
  preparePolicyChoice,
} from './PolicyChoiceFields.tsx';

/** The install key (spec-notes §3 "one-time key"), how an agent uses it, and "New install key" behind a confirmation. */
function InstallKeyPanel({ customerId, config }: { customerId: number; config: DeviceConfigAnswer }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const regenerate = useRegenerateInstallKeyMutation(customerId);
  const [opened, { open, close }] = useDisclosure(false);
  // docs/agent.md "Install": --server, --doh and --install-key are all required on the first start.
  const doh = config.agent_doh_url ?? t('devices.agentDohPlaceholder');
  const command = `cordon agent --server ${window.location.origin} --doh ${doh} --install-key ${config.install_key}`;
  return (
    <Paper withBorder p="md" radius="md">
      <Stack>
        <Title order={2} size="h4">
          {t('devices.installKey')}
        </Title>
        <Group gap="xs" wrap="nowrap">
          <Code data-testid="install-key" style={{ overflowWrap: 'anywhere', flex: 1 }}>
            {config.install_key}
          </Code>
          <CopyButton value={config.install_key}>
            {({ copied, copy }) => (
              <Button size="compact-sm" variant="light" leftSection={<IconCopy size={14} />} onClick={copy}>
                {copied ? t('devices.copied') : t('devices.copy')}
              </Button>
            )}
          </CopyButton>
        </Group>
        <Text size="sm" c="dimmed">
          {t('devices.installKeyHelp', { at: fmt.dateTime(config.install_key_created_at) })}
        </Text>
        <Code block data-testid="agent-command" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {command}
        </Code>
        {config.agent_doh_url === null && (
          <Text size="sm" c="dimmed">
            {t('devices.agentDohMissing')}
          </Text>
        )}
        <Group>
          <Button variant="light" leftSection={<IconKey size={16} />} onClick={open}>
            {t('devices.regenerate')}
          </Button>
        </Group>
        <Modal opened={opened} onClose={close} title={t('devices.regenerateTitle')} centered>
          <Text mb="md">{t('devices.regenerateText')}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={close} disabled={regenerate.isPending}>
              {t('common.cancel')}
            </Button>
            <Button
              data-autofocus
              loading={regenerate.isPending}
              onClick={() =>
                regenerate.mutate(undefined, {
                  onSuccess: () => showSuccessToast(t('devices.regenerated')),
                  onSettled: close,
                })
              }
            >
              {t('devices.regenerate')}
            </Button>
          </Group>
        </Modal>
      </Stack>
    </Paper>
  );
}

/** What devices that inherit get: the policy choice and the device exception (spec-notes §7 `POST /users/{id}/devices/config`). */
function CustomerConfigForm({ customerId, config }: { customerId: number; config: DeviceConfigAnswer }) {
  const { t } = useTranslation();
  const update = useUpdateDeviceConfigMutation(customerId);
  const form = useForm<PolicyChoiceValues>({
    initialValues: policyChoiceValues(config),
    validate: (v) => (v.policy_mode === 'policy' && v.policy === '' ? { policy: t('devices.selectPolicy') } : {}),
  });
  // mutateAsync: the form remounts with the saved values, and a mutate() callback would be lost then.
  const submit = form.onSubmit((values) =>
    update.mutateAsync(deviceConfigUpdateSchema.parse(preparePolicyChoice(values))).then(
      () => showSuccessToast(t('devices.configSaved')),
      (error: unknown) => applyServerErrors(form, error, policyChoiceFieldErrors),
    ),
  );
  return (
    <Paper withBorder p="md" radius="md">
      <form onSubmit={submit} noValidate>
        <Stack>
          <Title order={2} size="h4">
            {t('devices.customerConfig')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('devices.customerConfigHelp')}
          </Text>
          <PolicyChoiceFields
            customerId={customerId}
            inheritExceptionLabel={t('devices.noException')}
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
            <Button type="submit" loading={update.isPending}>
              {t('common.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

/**
 * `/customer/settings/device_configuration` (spec-notes §2): the install key agents enrol with (a new
 * key stops new installs only, spec-notes §4), the configuration inheriting devices get, and the
 * customer's advanced JSON configuration.
 */
export function DeviceConfigurationPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const config = useDeviceConfigQuery(customerId);
  const setAdvanced = useSetCustomerAdvancedMutation(customerId);
  const resetAdvanced = useResetCustomerAdvancedMutation(customerId);
  return (
    <>
      <PageHeader />
      <QueryState query={config}>
        {(c) => (
          <Stack maw={760}>
            <InstallKeyPanel customerId={customerId} config={c} />
            <CustomerConfigForm
              key={`${c.policy_mode}/${c.policy_id}/${c.device_exception_id}`}
              customerId={customerId}
              config={c}
            />
            <AdvancedConfigPanel
              key={c.configuration ?? ''}
              configuration={c.configuration}
              lockNote={t('devices.customerAdvancedNote')}
              pending={setAdvanced.isPending || resetAdvanced.isPending}
              save={(configuration) => setAdvanced.mutateAsync({ configuration })}
              reset={() => resetAdvanced.mutateAsync(undefined)}
            />
          </Stack>
        )}
      </QueryState>
    </>
  );
}
