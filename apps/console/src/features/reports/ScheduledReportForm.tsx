import {
  REPORT_FREQUENCIES,
  REPORTS,
  type ReportCode,
  type ReportFrequency,
  type ScheduledReport,
  scheduledReportCreateSchema,
} from '@cordon/shared';
import { Select, Stack, TextInput } from '@mantine/core';
import { type UseFormReturnType, useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { FormActions } from '../../components/FormActions.tsx';
import { schemaValidator, submitThrough } from '../../components/form.ts';
import { showSuccessToast } from '../../components/toast.ts';
import { useCreateScheduledReportMutation, useUpdateScheduledReportMutation } from './api.ts';
import { prepareScheduledReport, type ScheduledReportValues, scheduledReportFormErrors } from './scheduledForm.ts';

type Values = ScheduledReportValues;
const prepare = prepareScheduledReport;
const validateSchema = schemaValidator(scheduledReportCreateSchema, prepare);
const validate = (values: Values) => scheduledReportFormErrors(validateSchema(values), values);

function Fields({ form }: { form: Pick<UseFormReturnType<Values>, 'getInputProps'> }) {
  const { t } = useTranslation();
  return (
    <>
      <TextInput label={t('reports.name')} required data-autofocus {...form.getInputProps('name')} />
      <Select
        label={t('reports.reportType')}
        placeholder={t('reports.pickType')}
        required
        allowDeselect={false}
        searchable
        data={(['behaviour', 'blocked', 'trend', 'security'] as const).map((type) => ({
          group: t(`reports.types.${type}`),
          items: REPORTS.filter((r) => r.type === type).map((r) => ({
            value: r.code,
            label: t(`reports.codes.${r.code}`),
          })),
        }))}
        {...form.getInputProps('type')}
      />
      <Select
        label={t('reports.frequency')}
        required
        data={REPORT_FREQUENCIES.map((f) => ({ value: f, label: t(`reports.frequencies.${f}`) }))}
        allowDeselect={false}
        {...form.getInputProps('frequency')}
      />
      <TextInput
        label={t('reports.recipients')}
        description={t('reports.recipientsHint')}
        required
        {...form.getInputProps('recipients')}
      />
    </>
  );
}

/** The "New scheduled report" form (spec-notes §3 "Scheduled report": name, type, frequency, recipients). */
export function ScheduledReportCreateForm({ customerId, onDone }: { customerId: number; onDone: () => void }) {
  const { t } = useTranslation();
  const create = useCreateScheduledReportMutation(customerId);
  const form = useForm<Values>({
    initialValues: { name: '', type: '', frequency: 'weekly', recipients: '' },
    validate,
  });
  const submit = submitThrough({
    form,
    schema: scheduledReportCreateSchema,
    prepare,
    mutation: create,
    toFormErrors: (errors) => scheduledReportFormErrors(errors, form.getValues()),
    onSuccess: () => {
      showSuccessToast(t('reports.scheduledCreated'));
      onDone();
    },
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Fields form={form} />
        <FormActions onCancel={onDone} pending={create.isPending} />
      </Stack>
    </form>
  );
}

/** The edit form of a scheduled report. */
export function ScheduledReportEditForm({
  customerId,
  report,
  onDone,
}: {
  customerId: number;
  report: ScheduledReport;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const update = useUpdateScheduledReportMutation(customerId, report.id);
  const form = useForm<Values>({
    initialValues: {
      name: report.name,
      type: report.type as ReportCode,
      frequency: report.frequency as ReportFrequency,
      recipients: report.recipients.join(', '),
    },
    validate,
  });
  const submit = submitThrough({
    form,
    schema: scheduledReportCreateSchema,
    prepare,
    mutation: update,
    toFormErrors: (errors) => scheduledReportFormErrors(errors, form.getValues()),
    onSuccess: () => {
      showSuccessToast(t('reports.scheduledSaved'));
      onDone();
    },
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Fields form={form} />
        <FormActions onCancel={onDone} pending={update.isPending} submitLabel={t('common.save')} />
      </Stack>
    </form>
  );
}
