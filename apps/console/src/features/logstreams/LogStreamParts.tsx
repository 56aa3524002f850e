import { LOG_STREAM_FORMATS, type LogStream, type LogStreamFormat } from '@cordon/shared';
import { Badge, Checkbox, PasswordInput, Radio, Stack, Text, Textarea, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { DataTable } from '../../components/DataTable.tsx';
import { formatDateTime } from '../../components/format.ts';
import { StatusBadge } from '../../components/StatusBadge.tsx';

/** The values of the create and edit forms. */
export interface LogStreamFormValues {
  name: string;
  format: LogStreamFormat;
  address: string;
  ca_pem: string;
  /** Empty: none on creation, unchanged on edit. */
  authorization: string;
  /** Edit only: remove the Authorization value kept so far. */
  removeAuthorization: boolean;
}

/** The form's values → the create body (`logStreamCreateSchema`'s input). */
export function createBody(v: LogStreamFormValues) {
  return {
    name: v.name,
    format: v.format,
    address: v.address,
    ca_pem: v.ca_pem.trim() === '' ? null : v.ca_pem,
    authorization: v.format === 'ndjson' && v.authorization.trim() !== '' ? v.authorization : null,
  };
}

/**
 * The form's values → the PATCH body: every field; the Authorization value only when a new one is
 * typed or its removal asked (a syslog destination drops it on the server).
 */
export function updateBody(v: LogStreamFormValues) {
  const { authorization, ...rest } = createBody(v);
  return {
    ...rest,
    ...(authorization !== null ? { authorization } : v.removeAuthorization ? { authorization: null } : {}),
  };
}

/** The form's values for `stream` (edit), or a new destination's. */
export function formValues(stream?: LogStream): LogStreamFormValues {
  return {
    name: stream?.name ?? '',
    format: stream?.format ?? 'ndjson',
    address: stream?.address ?? '',
    ca_pem: stream?.ca_pem ?? '',
    authorization: '',
    removeAuthorization: false,
  };
}

/** A date and time through the console's one formatter, or "—". */
function When({ iso }: { iso: string | null }) {
  const { i18n } = useTranslation();
  if (iso === null) return <Text size="sm">—</Text>;
  return (
    <Text size="sm" component="time" dateTime={iso}>
      {formatDateTime(iso, i18n.language)}
    </Text>
  );
}

/** The fields of the create and edit forms; `hint` is the kept Authorization value's hint (edit). */
export function LogStreamFields({ form, hint }: { form: UseFormReturnType<LogStreamFormValues>; hint: string | null }) {
  const { t } = useTranslation();
  const ndjson = form.values.format === 'ndjson';
  return (
    <Stack>
      <TextInput label={t('logStreams.name')} required data-autofocus {...form.getInputProps('name')} />
      <Radio.Group label={t('logStreams.format')} required {...form.getInputProps('format')}>
        <Stack gap="xs" mt="xs">
          {LOG_STREAM_FORMATS.map((f) => (
            <Radio key={f} value={f} label={t(`logStreams.formats.${f}`)} />
          ))}
        </Stack>
      </Radio.Group>
      <TextInput
        label={t('logStreams.address')}
        description={t(ndjson ? 'logStreams.addressHintNdjson' : 'logStreams.addressHintSyslog')}
        placeholder={ndjson ? 'https://siem.example.com/services/collector/raw' : 'tls://logs.example.com:6514'}
        required
        {...form.getInputProps('address')}
      />
      {ndjson ? (
        <>
          <PasswordInput
            label={t('logStreams.authorization')}
            description={
              hint !== null ? t('logStreams.authorizationKept', { hint }) : t('logStreams.authorizationHint')
            }
            placeholder="Splunk 00000000-0000-0000-0000-000000000000"
            autoComplete="off"
            {...form.getInputProps('authorization')}
          />
          {hint !== null ? (
            <Checkbox
              label={t('logStreams.removeAuthorization')}
              {...form.getInputProps('removeAuthorization', { type: 'checkbox' })}
            />
          ) : null}
        </>
      ) : null}
      <Textarea
        label={t('logStreams.ca')}
        description={t('logStreams.caHint')}
        placeholder="-----BEGIN CERTIFICATE-----"
        autosize
        minRows={2}
        maxRows={8}
        styles={{ input: { fontFamily: 'monospace' } }}
        {...form.getInputProps('ca_pem')}
      />
    </Stack>
  );
}

/** Whether the destination's last error is newer than its last delivery (it is failing now). */
export function isFailing(s: LogStream): boolean {
  return s.last_error !== null && (s.last_delivered_at === null || (s.last_error_at ?? '') > s.last_delivered_at);
}

/** The destinations: name and address, format, state (with a current failure), last delivery, and the row's actions. */
export function LogStreamList(props: { rows: readonly LogStream[]; actions: (s: LogStream) => ReactNode }) {
  const { t } = useTranslation();
  return (
    <DataTable
      rows={props.rows}
      rowKey={(s) => s.id}
      testId="log-streams-table"
      minWidth={760}
      emptyText={t('logStreams.empty')}
      columns={[
        {
          key: 'name',
          header: t('logStreams.name'),
          render: (s) => (
            <Stack gap={0}>
              <Text size="sm" fw={500}>
                {s.name}
              </Text>
              <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                {s.address}
              </Text>
            </Stack>
          ),
        },
        {
          key: 'format',
          header: t('logStreams.format'),
          render: (s) => (
            <Badge variant="light" size="sm">
              {t(`logStreams.formatsShort.${s.format}`)}
            </Badge>
          ),
        },
        {
          key: 'state',
          header: t('logStreams.state'),
          render: (s) => (
            <Stack gap={2}>
              <StatusBadge status={s.enabled ? 'enabled' : 'disabled'} />
              {s.enabled && isFailing(s) ? (
                <Text size="xs" c="red.9" data-testid="log-stream-error">
                  {t('logStreams.failing', { error: s.last_error })}
                </Text>
              ) : null}
            </Stack>
          ),
        },
        { key: 'delivered', header: t('logStreams.lastDelivered'), render: (s) => <When iso={s.last_delivered_at} /> },
        { key: 'actions', header: '', render: props.actions },
      ]}
    />
  );
}
