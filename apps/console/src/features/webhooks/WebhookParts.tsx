import { WEBHOOK_EVENT_TYPES, type Webhook, type WebhookDelivery } from '@cordon/shared';
import { Alert, Badge, Button, Checkbox, Code, CopyButton, Group, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { DataTable } from '../../components/DataTable.tsx';
import { formatDateTime } from '../../components/format.ts';
import { StatusBadge } from '../../components/StatusBadge.tsx';

/** The message key of an event type (i18n keys hold no dot). */
const eventKey = (type: string) => `webhooks.eventTypes.${type.replace('.', '_')}`;

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

/** The event-type checkboxes of the create form (at least one; labelled group). */
export function EventCheckboxes(props: { value: string[]; onChange: (v: string[]) => void; error?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Checkbox.Group
      label={t('webhooks.events')}
      value={props.value}
      onChange={props.onChange}
      error={props.error}
      required
    >
      <Stack gap="xs" mt="xs">
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <Checkbox key={type} value={type} label={t(eventKey(type))} description={type} />
        ))}
      </Stack>
    </Checkbox.Group>
  );
}

/** The banner naming the endpoints the worker disabled after persistent failure, and why. */
export function DisabledBanner({ rows }: { rows: readonly Webhook[] }) {
  const { t } = useTranslation();
  const disabled = rows.filter((w) => w.disabled_reason !== null);
  if (disabled.length === 0) return null;
  return (
    <Alert color="orange" title={t('webhooks.disabledTitle')} mb="md" role="alert">
      <Stack gap={4}>
        {disabled.map((w) => (
          <Text size="sm" key={w.id}>
            {t('webhooks.disabledLine', { url: w.url, reason: w.disabled_reason })}
          </Text>
        ))}
        <Text size="sm">{t('webhooks.disabledHelp')}</Text>
      </Stack>
    </Alert>
  );
}

/** The endpoint list: URL and description, events, state (with the failure run), and the row's actions. */
export function WebhookList(props: { rows: readonly Webhook[]; actions: (w: Webhook) => ReactNode }) {
  const { t } = useTranslation();
  return (
    <DataTable
      rows={props.rows}
      rowKey={(w) => w.id}
      testId="webhooks-table"
      minWidth={820}
      emptyText={t('webhooks.empty')}
      columns={[
        {
          key: 'url',
          header: t('webhooks.url'),
          render: (w) => (
            <Stack gap={0}>
              <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
                {w.url}
              </Text>
              {w.description ? (
                <Text size="xs" c="dimmed">
                  {w.description}
                </Text>
              ) : null}
            </Stack>
          ),
        },
        {
          key: 'events',
          header: t('webhooks.events'),
          render: (w) => (
            <Group gap={4}>
              {w.events.map((e) => (
                <Badge key={e} variant="light" size="sm">
                  {t(eventKey(e), { defaultValue: e })}
                </Badge>
              ))}
            </Group>
          ),
        },
        {
          key: 'state',
          header: t('webhooks.state'),
          render: (w) => (
            <Stack gap={2}>
              <StatusBadge status={w.enabled ? 'enabled' : 'disabled'} />
              {w.consecutive_failures > 0 ? (
                <Text size="xs" c="orange.9">
                  {t('webhooks.failures', { count: w.consecutive_failures })}
                </Text>
              ) : null}
            </Stack>
          ),
        },
        { key: 'created', header: t('webhooks.created'), render: (w) => <When iso={w.created_at} /> },
        { key: 'actions', header: '', render: props.actions },
      ]}
    />
  );
}

/** A delivery's status badge. */
function DeliveryStatus({ status }: { status: WebhookDelivery['status'] }) {
  const { t } = useTranslation();
  const color = status === 'delivered' ? 'teal' : status === 'failed' ? 'red' : 'orange';
  return (
    <Badge variant="dot" color={color} size="sm" data-status={status}>
      {t(`webhooks.status.${status}`)}
    </Badge>
  );
}

/** The delivery log: event type, status, attempts, last response code or error, when, and Redeliver. */
export function DeliveryLog(props: {
  rows: readonly WebhookDelivery[];
  onRedeliver: (d: WebhookDelivery) => void;
  pendingId: number | null;
  canRedeliver: boolean;
}) {
  const { t } = useTranslation();
  return (
    <DataTable
      rows={props.rows}
      rowKey={(d) => d.id}
      testId="webhook-deliveries"
      minWidth={760}
      emptyText={t('webhooks.noDeliveries')}
      columns={[
        { key: 'created', header: t('webhooks.when'), render: (d) => <When iso={d.created_at} /> },
        { key: 'type', header: t('webhooks.event'), render: (d) => <Code>{d.type}</Code> },
        { key: 'status', header: t('webhooks.statusHeader'), render: (d) => <DeliveryStatus status={d.status} /> },
        { key: 'attempts', header: t('webhooks.attempts'), render: (d) => d.attempts },
        {
          key: 'code',
          header: t('webhooks.responseCode'),
          render: (d) => (
            <Stack gap={0}>
              <Text size="sm">{d.last_status_code ?? '—'}</Text>
              {d.last_error && d.status !== 'delivered' ? (
                <Text size="xs" c="red.9" style={{ overflowWrap: 'anywhere' }}>
                  {d.last_error}
                </Text>
              ) : null}
            </Stack>
          ),
        },
        { key: 'next', header: t('webhooks.nextAttempt'), render: (d) => <When iso={d.next_attempt_at} /> },
        {
          key: 'redeliver',
          header: '',
          render: (d) => (
            <Button
              size="xs"
              variant="light"
              disabled={!props.canRedeliver}
              loading={props.pendingId === d.id}
              aria-label={t('webhooks.redeliverRow', { event: d.event_id })}
              onClick={() => props.onRedeliver(d)}
            >
              {t('webhooks.redeliver')}
            </Button>
          ),
        },
      ]}
    />
  );
}

/** A new or rotated secret, shown this once, with a copy button. */
export function SecretOnce({ secret, onDone }: { secret: string; onDone: () => void }) {
  const { t } = useTranslation();
  return (
    <Stack>
      <Alert color="orange" title={t('webhooks.secretOnceTitle')}>
        {t('webhooks.secretOnce')}
      </Alert>
      <Code block data-testid="webhook-secret">
        {secret}
      </Code>
      <Group justify="flex-end">
        <CopyButton value={secret}>
          {({ copied, copy }) => (
            <Button variant="light" onClick={copy}>
              {copied ? t('webhooks.copied') : t('webhooks.copy')}
            </Button>
          )}
        </CopyButton>
        <Button onClick={onDone} data-autofocus>
          {t('webhooks.done')}
        </Button>
      </Group>
    </Stack>
  );
}
