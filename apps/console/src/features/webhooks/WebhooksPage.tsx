import { WEBHOOK_EVENT_TYPES, type Webhook, type WebhookOwnerQuery, webhookCreateSchema } from '@cordon/shared';
import { ActionIcon, Button, Group, Modal, Stack, Switch, Text, TextInput, Tooltip } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { IconKey, IconList, IconPlus, IconSend, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { FormActions } from '../../components/FormActions.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId, useMspId } from '../../session/context.ts';
import {
  useCreateWebhookMutation,
  useDeleteWebhookMutation,
  useDeliveriesQuery,
  useRedeliverMutation,
  useRotateSecretMutation,
  useTestWebhookMutation,
  useUpdateWebhookMutation,
  useWebhooksQuery,
} from './api.ts';
import { DeliveryLog, DisabledBanner, EventCheckboxes, SecretOnce, WebhookList } from './WebhookParts.tsx';

interface CreateValues {
  url: string;
  description: string;
  events: string[];
}
const prepare = (v: CreateValues) => v;
const validate = schemaValidator(webhookCreateSchema, prepare);

/** "New endpoint": URL, description and event checkboxes; on success the secret is shown once. */
function CreateForm({
  owner,
  onCreated,
  onCancel,
}: {
  owner: WebhookOwnerQuery;
  onCreated: (secret: string) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const create = useCreateWebhookMutation(owner);
  const form = useForm<CreateValues>({
    initialValues: { url: '', description: '', events: [WEBHOOK_EVENT_TYPES[0]] },
    validate,
  });
  // As submitThrough does, but the answer's secret goes on to be shown once.
  const submit = form.onSubmit((values) =>
    create.mutate(webhookCreateSchema.parse(prepare(values)), {
      onSuccess: (created) => {
        showSuccessToast(t('webhooks.createdToast'));
        onCreated(created.secret);
      },
      onError: (error) => applyServerErrors(form, error),
    }),
  );
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label={t('webhooks.url')}
          description={t('webhooks.urlHint')}
          placeholder="https://hooks.example.com/cordon"
          required
          data-autofocus
          {...form.getInputProps('url')}
        />
        <TextInput label={t('common.description')} {...form.getInputProps('description')} />
        <EventCheckboxes
          value={form.values.events}
          onChange={(v) => form.setFieldValue('events', v)}
          error={form.errors['events']}
        />
        <FormActions onCancel={onCancel} pending={create.isPending} />
      </Stack>
    </form>
  );
}

/** The delivery log of one endpoint (refreshed every 10 s) with Redeliver. */
function DeliveriesPanel({ webhook }: { webhook: Webhook }) {
  const { t } = useTranslation();
  const query = useDeliveriesQuery(webhook.id);
  const redeliver = useRedeliverMutation(webhook.id);
  return (
    <QueryState query={query}>
      {(page) => (
        <DeliveryLog
          rows={page.data}
          canRedeliver={webhook.enabled}
          pendingId={redeliver.isPending ? (redeliver.variables ?? null) : null}
          onRedeliver={(d) =>
            redeliver.mutate(d.id, { onSuccess: () => showSuccessToast(t('webhooks.redeliveredToast')) })
          }
        />
      )}
    </QueryState>
  );
}

/** A row's actions: enable switch, send a test, the log, rotate the secret and delete (both confirmed). */
function RowActions({ webhook, onSecret }: { webhook: Webhook; onSecret: (s: string) => void }) {
  const { t } = useTranslation();
  const update = useUpdateWebhookMutation(webhook.id);
  const test = useTestWebhookMutation(webhook.id);
  const rotate = useRotateSecretMutation(webhook.id);
  const remove = useDeleteWebhookMutation(webhook.id);
  const [modal, setModal] = useState<'log' | 'rotate' | 'delete' | null>(null);
  const close = () => setModal(null);
  const url = webhook.url;
  return (
    <Group gap={4} wrap="nowrap" justify="flex-end">
      <Switch
        checked={webhook.enabled}
        aria-label={t('webhooks.enabledRow', { url })}
        disabled={update.isPending}
        onChange={(e) =>
          update.mutate(
            { enabled: e.currentTarget.checked },
            { onSuccess: (w) => showSuccessToast(t(w.enabled ? 'webhooks.enabledToast' : 'webhooks.disabledToast')) },
          )
        }
      />
      <Tooltip label={t('webhooks.test')}>
        <ActionIcon
          variant="subtle"
          aria-label={t('webhooks.testRow', { url })}
          disabled={!webhook.enabled}
          loading={test.isPending}
          onClick={() => test.mutate(undefined, { onSuccess: () => showSuccessToast(t('webhooks.testToast')) })}
        >
          <IconSend size={16} aria-hidden />
        </ActionIcon>
      </Tooltip>
      <Tooltip label={t('webhooks.log')}>
        <ActionIcon variant="subtle" aria-label={t('webhooks.logRow', { url })} onClick={() => setModal('log')}>
          <IconList size={16} aria-hidden />
        </ActionIcon>
      </Tooltip>
      <Tooltip label={t('webhooks.rotate')}>
        <ActionIcon variant="subtle" aria-label={t('webhooks.rotateRow', { url })} onClick={() => setModal('rotate')}>
          <IconKey size={16} aria-hidden />
        </ActionIcon>
      </Tooltip>
      <ActionIcon
        variant="subtle"
        color="red"
        aria-label={t('webhooks.deleteRow', { url })}
        onClick={() => setModal('delete')}
      >
        <IconTrash size={16} aria-hidden />
      </ActionIcon>
      <Modal opened={modal === 'log'} onClose={close} title={t('webhooks.logTitle', { url })} size="xl">
        <DeliveriesPanel webhook={webhook} />
      </Modal>
      <ConfirmDialog
        opened={modal === 'rotate'}
        onClose={close}
        title={t('webhooks.rotateTitle')}
        text={t('webhooks.rotateText', { url })}
        confirmLabel={t('webhooks.rotate')}
        loading={rotate.isPending}
        onConfirm={() =>
          rotate.mutateAsync(undefined).then((r) => {
            showSuccessToast(t('webhooks.rotatedToast'));
            onSecret(r.secret);
          })
        }
      />
      <ConfirmDialog
        opened={modal === 'delete'}
        onClose={close}
        title={t('webhooks.deleteTitle')}
        text={t('webhooks.deleteText', { url })}
        confirmLabel={t('common.delete')}
        loading={remove.isPending}
        onConfirm={() => remove.mutateAsync(undefined).then(() => showSuccessToast(t('webhooks.deletedToast')))}
      />
    </Group>
  );
}

/** The webhooks of one owner: the disabled banner, the list, New endpoint, and the secret shown once. */
function WebhooksView({ owner }: { owner: WebhookOwnerQuery }) {
  const { t } = useTranslation();
  const query = useWebhooksQuery(owner);
  const [creating, { open, close }] = useDisclosure(false);
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={open}>
            {t('webhooks.new')}
          </Button>
        }
      />
      <Text size="sm" mb="md" maw={760}>
        {t('webhooks.intro')}
      </Text>
      <QueryState query={query}>
        {(page) => (
          <>
            <DisabledBanner rows={page.data} />
            <WebhookList rows={page.data} actions={(w) => <RowActions webhook={w} onSecret={setSecret} />} />
          </>
        )}
      </QueryState>
      <Modal opened={creating} onClose={close} title={t('webhooks.new')} size="lg">
        <CreateForm
          owner={owner}
          onCancel={close}
          onCreated={(s) => {
            close();
            setSecret(s);
          }}
        />
      </Modal>
      <Modal opened={secret !== null} onClose={() => setSecret(null)} title={t('webhooks.secretTitle')} size="lg">
        {secret !== null ? <SecretOnce secret={secret} onDone={() => setSecret(null)} /> : null}
      </Modal>
    </>
  );
}

/** `/msp/global_settings/webhooks`: the MSP's own endpoints (issue 26; docs/api.md "Webhooks"). */
export function MspWebhooksPage() {
  return <WebhooksView owner={{ msp_id: useMspId() }} />;
}

/** `/customer/settings/webhooks`: the customer's endpoints (issue 26; docs/api.md "Webhooks"). */
export function CustomerWebhooksPage() {
  return <WebhooksView owner={{ user_id: useCustomerId() }} />;
}
