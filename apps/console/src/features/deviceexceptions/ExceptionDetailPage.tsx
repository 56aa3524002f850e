import { type DeviceException, deviceExceptionUpdateSchema, type ExceptionRule } from '@cordon/shared';
import {
  ActionIcon,
  Anchor,
  Button,
  Group,
  Modal,
  Paper,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { IconArrowLeft, IconPencil, IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { ConfirmDeleteButton } from '../../components/ConfirmDeleteButton.tsx';
import { DataTable, useListState } from '../../components/DataTable.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { DeleteSelectedButton, useMultiDeleteToasts, useRowSelection } from '../../components/RowSelection.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import {
  exceptionMoveOptions,
  useCreateRuleMutation,
  useDeleteExceptionsMutation,
  useDeleteRulesMutation,
  useExceptionDependantsFetcher,
  useExceptionQuery,
  useExceptionsQuery,
  useRulesQuery,
  useUpdateExceptionMutation,
  useUpdateRuleMutation,
} from './api.ts';
import { RuleForm } from './RuleForm.tsx';

const LIST = '/customer/settings/device_exceptions';
const validateException = schemaValidator(deviceExceptionUpdateSchema);

/** Name and description of the exception. */
function ExceptionForm({ exception }: { exception: DeviceException }) {
  const { t } = useTranslation();
  const update = useUpdateExceptionMutation(exception.id);
  const form = useForm({
    initialValues: { name: exception.name, description: exception.description },
    validate: validateException,
  });
  // mutateAsync: the form remounts with the saved values, and a mutate() callback would be lost then.
  const submit = form.onSubmit((values) =>
    update.mutateAsync(deviceExceptionUpdateSchema.parse(values)).then(
      () => showSuccessToast(t('deviceExceptions.saved')),
      (error: unknown) => applyServerErrors(form, error),
    ),
  );
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Text size="sm" c="dimmed">
          {t('deviceExceptions.counts', { devices: exception.devices_count, rules: exception.rules_count })}
        </Text>
        <TextInput label={t('common.name')} required {...form.getInputProps('name')} />
        <Textarea label={t('common.description')} autosize minRows={2} {...form.getInputProps('description')} />
        <Group justify="flex-end">
          <Button type="submit" loading={update.isPending}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The edit dialog of one rule. */
function EditRule({ exceptionId, rule, onDone }: { exceptionId: number; rule: ExceptionRule; onDone: () => void }) {
  const { t } = useTranslation();
  const update = useUpdateRuleMutation(exceptionId, rule.id);
  return (
    <RuleForm
      rule={rule}
      pending={update.isPending}
      submit={(body) => update.mutateAsync(body).then(() => showSuccessToast(t('deviceExceptions.ruleSaved')))}
      onDone={onDone}
    />
  );
}

/** The exception rules table: add, edit, and delete selected (the last rule of an exception in use stays, spec-notes §5). */
function RulesPanel({ exceptionId }: { exceptionId: number }) {
  const { t } = useTranslation();
  const rules = useRulesQuery(exceptionId);
  const rows = rules.data?.data ?? [];
  const list = useListState<'id'>({ key: 'id', dir: 'asc' });
  const selection = useRowSelection(rows.map((r) => r.id));
  const create = useCreateRuleMutation(exceptionId);
  const remove = useDeleteRulesMutation(exceptionId);
  const toastResult = useMultiDeleteToasts();
  const [adding, { open: openAdd, close: closeAdd }] = useDisclosure(false);
  const [editing, setEditing] = useState<ExceptionRule | null>(null);
  const onDelete = async () => {
    const names = new Map(rows.map((r) => [String(r.id), r.domain || r.ip]));
    const outcome = await remove.run(selection.selected);
    toastResult({
      deleted: outcome.succeeded.length,
      failed: outcome.failed.map((f) => ({ name: names.get(f.id) ?? f.id, error: f.error })),
    });
    selection.clear();
  };
  return (
    <Paper withBorder p="md" radius="md">
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h4">
            {t('deviceExceptions.rules')}
          </Title>
          <Group gap="xs">
            <DeleteSelectedButton
              count={selection.selected.length}
              loading={remove.isPending}
              onConfirm={onDelete}
              items={rows
                .filter((r) => selection.selected.includes(r.id))
                .map((r) => ({ id: r.id, name: r.domain || r.ip }))}
              kind="exception_rules"
            />
            <Button leftSection={<IconPlus size={16} />} onClick={openAdd}>
              {t('deviceExceptions.newRule')}
            </Button>
          </Group>
        </Group>
        <QueryState query={rules}>
          {(page) => (
            <DataTable
              rows={page.data}
              total={page.total}
              list={list}
              testId="rules-table"
              minWidth={640}
              emptyText={t('deviceExceptions.noRules')}
              rowKey={(r) => r.id}
              select={{ selection, rowId: (r) => r.id, rowName: (r) => r.domain || r.ip }}
              columns={[
                { key: 'domain', header: t('deviceExceptions.domain'), render: (r) => r.domain || '—' },
                {
                  key: 'ip',
                  header: t('deviceExceptions.sourceIp'),
                  render: (r) => r.ip || '—',
                  td: { ff: 'monospace' },
                },
                { key: 'type', header: t('deviceExceptions.ruleType'), render: (r) => r.rule_type },
                { key: 'resolver', header: t('deviceExceptions.resolver'), render: (r) => r.resolver || '—' },
                { key: 'description', header: t('common.description'), render: (r) => r.description },
                {
                  key: 'edit',
                  header: '',
                  w: 50,
                  render: (r) => (
                    <ActionIcon
                      variant="subtle"
                      aria-label={t('deviceExceptions.editRule', { name: r.domain || r.ip })}
                      onClick={() => setEditing(r)}
                    >
                      <IconPencil size={16} />
                    </ActionIcon>
                  ),
                },
              ]}
            />
          )}
        </QueryState>
      </Stack>
      <Modal opened={adding} onClose={closeAdd} title={t('deviceExceptions.newRule')}>
        <RuleForm
          rule={null}
          pending={create.isPending}
          submit={(body) => create.mutateAsync(body).then(() => showSuccessToast(t('deviceExceptions.ruleCreated')))}
          onDone={closeAdd}
        />
      </Modal>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={t('deviceExceptions.editRuleTitle')}>
        {editing ? <EditRule exceptionId={exceptionId} rule={editing} onDone={() => setEditing(null)} /> : null}
      </Modal>
    </Paper>
  );
}

function ExceptionDetail({ id }: { id: number }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const exception = useExceptionQuery(id);
  const remove = useDeleteExceptionsMutation();
  const fetchDependants = useExceptionDependantsFetcher();
  const others = useExceptionsQuery(useCustomerId(), {
    limit: 10_000,
    offset: 0,
    sortkey: 'name',
    sortdir: 'asc',
    filter: '',
  });
  const toastResult = useMultiDeleteToasts();
  usePageSubtitle(exception.data?.name);
  return (
    <>
      <Anchor component={Link} to={LIST} size="sm">
        <IconArrowLeft size={14} style={{ verticalAlign: 'middle' }} /> {t('deviceExceptions.back')}
      </Anchor>
      <PageHeader />
      <QueryState query={exception}>
        {(e) => (
          <Stack maw={900}>
            <Paper withBorder p="md" radius="md">
              <ExceptionForm key={e.updated_at} exception={e} />
            </Paper>
            <RulesPanel exceptionId={e.id} />
            <Group>
              <ConfirmDeleteButton
                label={t('common.delete')}
                title={t('deviceExceptions.confirmDeleteTitle')}
                text={t('deviceExceptions.confirmDeleteText', { name: e.name, count: e.devices_count })}
                item={{ id: e.id, name: e.name }}
                kind="device_exceptions"
                fetchDependants={fetchDependants}
                move={{
                  label: t('safeDelete.moveException'),
                  options: exceptionMoveOptions(others.data?.data ?? [], [e.id], t('safeDelete.detachException')),
                }}
                loading={remove.isPending}
                onConfirm={async (choice) => {
                  const outcome = await remove.run([e.id], choice.moveTo);
                  if (outcome.failed.length > 0) {
                    toastResult({ deleted: 0, failed: outcome.failed.map((f) => ({ name: e.name, error: f.error })) });
                  }
                  if (outcome.succeeded.length === 1) {
                    showSuccessToast(t('deviceExceptions.deleted'));
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

/** `/customer/settings/device_exceptions/{id}` (spec-notes §2 "device exceptions with exception rules"). */
export function ExceptionDetailPage() {
  const id = Number(useParams()['id']);
  if (!Number.isInteger(id) || id <= 0) return <Navigate to="/404" replace />;
  return <ExceptionDetail key={id} id={id} />;
}
