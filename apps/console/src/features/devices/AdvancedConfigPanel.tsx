import { advancedConfigSchema, Messages } from '@cordon/shared';
import { Button, Group, JsonInput, Paper, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { ConfirmDeleteButton } from '../../components/ConfirmDeleteButton.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { showSuccessToast } from '../../components/toast.ts';

const validate = schemaValidator(advancedConfigSchema);

/**
 * An advanced JSON configuration (spec-notes §7 "The payload is configuration"; spec-notes §5 "Must contain
 * valid JSON."): edit and save, or reset behind a confirmation. `lockNote` says what the
 * configuration locks (a device's details, spec-notes §4).
 */
export function AdvancedConfigPanel(props: {
  configuration: string | null;
  lockNote: string;
  save: (configuration: string) => Promise<unknown>;
  reset: () => Promise<unknown>;
  pending: boolean;
}) {
  const { t } = useTranslation();
  const form = useForm({ initialValues: { configuration: props.configuration ?? '' }, validate });
  const submit = form.onSubmit((values) => {
    props
      .save(values.configuration)
      .then(() => showSuccessToast(t('devices.advancedSaved')))
      .catch((error: unknown) => applyServerErrors(form, error));
  });
  return (
    <Paper withBorder p="md" radius="md">
      <form onSubmit={submit} noValidate>
        <Stack>
          <Title order={2} size="h4">
            {t('devices.advanced')}
          </Title>
          <Text size="sm" c="dimmed">
            {props.lockNote}
          </Text>
          <JsonInput
            label={t('devices.configuration')}
            placeholder='{ "filters": [] }'
            autosize
            minRows={4}
            maxRows={16}
            formatOnBlur
            validationError={Messages.invalidJson}
            data-testid="advanced-json"
            {...form.getInputProps('configuration')}
          />
          <Group justify="flex-end">
            {props.configuration !== null ? (
              <ConfirmDeleteButton
                label={t('devices.reset')}
                confirmLabel={t('devices.reset')}
                title={t('devices.resetTitle')}
                text={t('devices.resetText')}
                loading={props.pending}
                onConfirm={() => props.reset().then(() => showSuccessToast(t('devices.advancedReset')))}
              />
            ) : null}
            <Button type="submit" loading={props.pending}>
              {t('common.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
