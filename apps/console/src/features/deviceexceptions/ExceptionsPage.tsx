import { deviceExceptionCreateSchema } from '@cordon/shared';
import { Anchor, Button, Modal, Stack, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { ListToolbar, QueryDataTable, useListState } from '../../components/DataTable.tsx';
import { FormActions } from '../../components/FormActions.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { useFormat } from '../../components/format.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../../components/RowSelection.tsx';
import type { DeleteChoice } from '../../components/SafeDeleteDialog.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import {
  type ExceptionSortKey,
  exceptionMoveOptions,
  useCreateExceptionMutation,
  useDeleteExceptionsMutation,
  useExceptionDependantsFetcher,
  useExceptionsQuery,
} from './api.ts';

const BASE = '/customer/settings/device_exceptions';

/** "New device exception": name and description (spec-notes §3 "Device exception"). */
function ExceptionCreateForm({ customerId, onDone }: { customerId: number; onDone: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const create = useCreateExceptionMutation(customerId);
  const form = useForm({
    initialValues: { name: '', description: '' },
    validate: schemaValidator(deviceExceptionCreateSchema),
  });
  const submit = form.onSubmit((values) =>
    create.mutate(deviceExceptionCreateSchema.parse(values), {
      onSuccess: (created) => {
        showSuccessToast(t('deviceExceptions.created'));
        onDone();
        navigate(`${BASE}/${created.id}`);
      },
      onError: (error) => applyServerErrors(form, error),
    }),
  );
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('common.name')} required data-autofocus {...form.getInputProps('name')} />
        <Textarea label={t('common.description')} autosize minRows={2} {...form.getInputProps('description')} />
        <FormActions onCancel={onDone} pending={create.isPending} />
      </Stack>
    </form>
  );
}

/**
 * `/customer/settings/device_exceptions` (spec-notes §2): the customer's device exceptions with their
 * device and rule counts, paging, sort and search; "New device exception"; "Delete selected" as one
 * `/batch` (devices using one fall back to the device configuration's).
 */
export function ExceptionsPage() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const customerId = useCustomerId();
  const [opened, { open, close }] = useDisclosure(false);
  const list = useListState<ExceptionSortKey>({ key: 'name', dir: 'asc' });
  const exceptions = useExceptionsQuery(customerId, list.query);
  const rows = exceptions.data?.data ?? [];
  const selection = useRowSelection(rows.map((e) => e.id));
  const remove = useDeleteExceptionsMutation();
  const toastResult = useMultiDeleteToasts();
  const fetchDependants = useExceptionDependantsFetcher();
  const all = useExceptionsQuery(customerId, { limit: 10_000, offset: 0, sortkey: 'name', sortdir: 'asc', filter: '' });
  const onDelete = async (choice: DeleteChoice) => {
    const names = new Map(rows.map((e) => [String(e.id), e.name]));
    const outcome = await remove.run(selection.selected, choice.moveTo);
    toastResult({
      deleted: outcome.succeeded.length,
      failed: outcome.failed.map((f) => ({ name: names.get(f.id) ?? f.id, error: f.error })),
    });
    selection.clear();
    list.afterDelete(outcome.succeeded.length, rows.length);
  };
  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            {t('deviceExceptions.new')}
          </Button>
        }
      />
      <ListToolbar
        list={list}
        actions={
          <DeleteSelectedButton
            count={selection.selected.length}
            loading={remove.isPending}
            onConfirm={onDelete}
            items={rows.filter((e) => selection.selected.includes(e.id)).map((e) => ({ id: e.id, name: e.name }))}
            kind="device_exceptions"
            fetchDependants={fetchDependants}
            move={{
              label: t('safeDelete.moveException'),
              options: exceptionMoveOptions(all.data?.data ?? [], selection.selected, t('safeDelete.detachException')),
            }}
          />
        }
      />
      <QueryDataTable
        query={exceptions}
        list={list}
        testId="device-exceptions-table"
        minWidth={560}
        rowKey={(e) => e.id}
        select={{ selection, rowId: (e) => e.id, rowName: (e) => e.name }}
        columns={[
          {
            key: 'name',
            header: t('common.name'),
            sortKey: 'name',
            render: (e) => (
              <Anchor component={Link} to={`${BASE}/${e.id}`} fw={500}>
                {e.name}
              </Anchor>
            ),
          },
          { key: 'description', header: t('common.description'), sortKey: 'description', render: (e) => e.description },
          { key: 'devices', header: t('deviceExceptions.devicesCount'), render: (e) => e.devices_count },
          { key: 'rules', header: t('deviceExceptions.rulesCount'), render: (e) => e.rules_count },
          {
            key: 'updated',
            header: t('deviceExceptions.updated'),
            sortKey: 'updated_at',
            render: (e) => fmt.dateTime(e.updated_at),
          },
        ]}
      />
      <Modal opened={opened} onClose={close} title={t('deviceExceptions.new')}>
        <ExceptionCreateForm customerId={customerId} onDone={close} />
      </Modal>
    </>
  );
}
