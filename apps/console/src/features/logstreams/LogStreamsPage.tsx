import { type LogStream, type LogStreamOwnerQuery, logStreamCreateSchema, logStreamUpdateSchema } from '@cordon/shared';
import { ActionIcon, Button, Group, Modal, Switch, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { FormActions } from '../../components/FormActions.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useMspId } from '../../session/context.ts';
import {
  useCreateLogStreamMutation,
  useDeleteLogStreamMutation,
  useLogStreamsQuery,
  useUpdateLogStreamMutation,
} from './api.ts';
import {
  createBody,
  formValues,
  LogStreamFields,
  type LogStreamFormValues,
  LogStreamList,
  updateBody,
} from './LogStreamParts.tsx';

// Both forms check every field as a creation does (the address against the format, the header only for NDJSON).
const validate = schemaValidator(logStreamCreateSchema, createBody);

/** "New destination": on success one toast, then the list shows it. */
function CreateForm({ owner, onDone }: { owner: LogStreamOwnerQuery; onDone: () => void }) {
  const { t } = useTranslation();
  const create = useCreateLogStreamMutation(owner);
  const form = useForm<LogStreamFormValues>({ initialValues: formValues(), validate });
  const submit = form.onSubmit((values) =>
    create.mutate(logStreamCreateSchema.parse(createBody(values)), {
      onSuccess: () => {
        showSuccessToast(t('logStreams.createdToast'));
        onDone();
      },
      onError: (error) => applyServerErrors(form, error),
    }),
  );
  return (
    <form onSubmit={submit} noValidate>
      <LogStreamFields form={form} hint={null} />
      <FormActions onCancel={onDone} pending={create.isPending} />
    </form>
  );
}

/** "Edit destination": the kept Authorization value shown as its hint, replaced only when typed. */
function EditForm({ stream, onDone }: { stream: LogStream; onDone: () => void }) {
  const { t } = useTranslation();
  const update = useUpdateLogStreamMutation(stream.id);
  const form = useForm<LogStreamFormValues>({ initialValues: formValues(stream), validate });
  const submit = form.onSubmit((values) =>
    update.mutate(logStreamUpdateSchema.parse(updateBody(values)), {
      onSuccess: () => {
        showSuccessToast(t('logStreams.savedToast'));
        onDone();
      },
      onError: (error) => applyServerErrors(form, error),
    }),
  );
  return (
    <form onSubmit={submit} noValidate>
      <LogStreamFields form={form} hint={stream.authorization_hint} />
      <FormActions onCancel={onDone} pending={update.isPending} submitLabel={t('common.save')} />
    </form>
  );
}

/** A row's actions: the enable switch, edit, and delete (confirmed, naming what stops). */
function RowActions({ stream }: { stream: LogStream }) {
  const { t } = useTranslation();
  const update = useUpdateLogStreamMutation(stream.id);
  const remove = useDeleteLogStreamMutation(stream.id);
  const [modal, setModal] = useState<'edit' | 'delete' | null>(null);
  const close = () => setModal(null);
  const name = stream.name;
  return (
    <Group gap={4} wrap="nowrap" justify="flex-end">
      <Switch
        checked={stream.enabled}
        aria-label={t('logStreams.enabledRow', { name })}
        disabled={update.isPending}
        onChange={(e) =>
          update.mutate(
            { enabled: e.currentTarget.checked },
            {
              onSuccess: (s) => showSuccessToast(t(s.enabled ? 'logStreams.enabledToast' : 'logStreams.disabledToast')),
            },
          )
        }
      />
      <ActionIcon variant="subtle" aria-label={t('logStreams.editRow', { name })} onClick={() => setModal('edit')}>
        <IconPencil size={16} aria-hidden />
      </ActionIcon>
      <ActionIcon
        variant="subtle"
        color="red"
        aria-label={t('logStreams.deleteRow', { name })}
        onClick={() => setModal('delete')}
      >
        <IconTrash size={16} aria-hidden />
      </ActionIcon>
      <Modal opened={modal === 'edit'} onClose={close} title={t('logStreams.editTitle', { name })} size="lg">
        <EditForm stream={stream} onDone={close} />
      </Modal>
      <ConfirmDialog
        opened={modal === 'delete'}
        onClose={close}
        title={t('logStreams.deleteTitle')}
        text={t('logStreams.deleteText', { name, address: stream.address })}
        confirmLabel={t('common.delete')}
        loading={remove.isPending}
        onConfirm={() => remove.mutateAsync(undefined).then(() => showSuccessToast(t('logStreams.deletedToast')))}
      />
    </Group>
  );
}

/** The MSP's destinations: the list and New destination. */
function LogStreamsView({ owner }: { owner: LogStreamOwnerQuery }) {
  const { t } = useTranslation();
  const query = useLogStreamsQuery(owner);
  const [creating, { open, close }] = useDisclosure(false);
  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={open}>
            {t('logStreams.new')}
          </Button>
        }
      />
      <Text size="sm" mb="md" maw={760}>
        {t('logStreams.intro')}
      </Text>
      <QueryState query={query}>
        {(page) => <LogStreamList rows={page.data} actions={(s) => <RowActions stream={s} />} />}
      </QueryState>
      <Modal opened={creating} onClose={close} title={t('logStreams.new')} size="lg">
        <CreateForm owner={owner} onDone={close} />
      </Modal>
    </>
  );
}

/**
 * `/msp/global_settings/log_streams`: the MSP's query-log destinations, for its admins and the
 * system admin viewing it (issue 26; docs/operations.md "Query-log streaming" "Per-MSP destinations").
 */
export function MspLogStreamsPage() {
  return <LogStreamsView owner={{ msp_id: useMspId() }} />;
}
