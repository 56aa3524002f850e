import {
  CATEGORIES,
  NOTIFICATION_INTERVALS,
  NOTIFICATION_WINDOWS,
  type PolicyNotifications,
  type PolicyNotificationsUpdate,
  policyNotificationsUpdateSchema,
  UNCLASSIFIED_CATEGORY_ID,
} from '@cordon/shared';
import { Button, Group, MultiSelect, Paper, Select, SimpleGrid, Stack, TagsInput, Text, Title } from '@mantine/core';
import type { FormErrors } from '@mantine/form';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { useCategoryName } from '../../components/categoryName.ts';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { formatDateTime } from '../../components/format.ts';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { UnsavedChangesPrompt } from '../../components/UnsavedChangesPrompt.tsx';
import { type NotificationsOwner, useNotificationsQuery, useSaveNotificationsMutation } from './notificationsApi.ts';

/** The form's values: ids as strings for the MultiSelect, the recipients as tags. */
export interface NotificationValues {
  categories: string[];
  interval: string;
  period: string;
  emails: string[];
}

/** The categories one can be notified about: the taxonomy without "Unclassified", by name in the interface language. */
function categoryOptions(categoryName: (id: number) => string, lang: string): { value: string; label: string }[] {
  return CATEGORIES.filter((c) => c.id !== UNCLASSIFIED_CATEGORY_ID)
    .map((c) => ({ value: String(c.id), label: categoryName(c.id) }))
    .sort((a, b) => a.label.localeCompare(b.label, lang));
}

/** Stored settings → form values. */
export function toValues(
  s: Pick<PolicyNotifications, 'categories' | 'interval' | 'period' | 'emails'>,
): NotificationValues {
  return { categories: s.categories.map(String), interval: s.interval, period: s.period, emails: [...s.emails] };
}

/** Form values → the schema's input (`policyNotificationsUpdateSchema`); an empty select is left out. */
export function toBody(v: NotificationValues): unknown {
  return {
    categories: v.categories.map(Number),
    interval: v.interval || undefined,
    period: v.period || undefined,
    emails: v.emails,
  };
}

/** Puts a message about one list item (`emails.1`, `categories.0`) on its list's field. */
export function toFormErrors(errors: FormErrors): FormErrors {
  const out: FormErrors = {};
  for (const [key, message] of Object.entries(errors)) {
    const field = key.split('.')[0] ?? key;
    out[field] ??= message;
  }
  return out;
}

const validateSchema = schemaValidator(policyNotificationsUpdateSchema, toBody);
const validate = (values: NotificationValues) => toFormErrors(validateSchema(values));

/** The last digest's outcome, or that none ran yet. */
function LastRun({ settings }: { settings: PolicyNotifications }) {
  const { t, i18n } = useTranslation();
  if (!settings.last_status || !settings.last_run_at) return null;
  const status = t(`notifications.status.${settings.last_status.replace(' ', '_')}`, {
    defaultValue: settings.last_status,
  });
  return (
    <Text size="sm" c="dimmed" data-testid="notifications-last-run">
      {t('notifications.lastRun', { at: formatDateTime(settings.last_run_at, i18n.language), status })}
      {settings.last_reason ? ` (${settings.last_reason})` : ''}
    </Text>
  );
}

/**
 * The category notifications of one policy (spec-notes §3 "Notification settings"): the
 * categories to report, how often the digest is mailed, the window it counts and the recipients.
 * Saving replaces the settings; categories without a recipient are refused with the spec-notes §5 text.
 */
export function PolicyNotificationsForm({
  owner,
  settings,
}: {
  owner: NotificationsOwner;
  settings: PolicyNotifications;
}) {
  const { t, i18n } = useTranslation();
  const categoryName = useCategoryName();
  const save = useSaveNotificationsMutation(owner);
  const form = useForm<NotificationValues>({ initialValues: toValues(settings), validate });
  const submit = form.onSubmit((values) => {
    const body: PolicyNotificationsUpdate = policyNotificationsUpdateSchema.parse(toBody(values));
    save.mutate(body, {
      onSuccess: (saved) => {
        showSuccessToast(t('notifications.saved'));
        form.setInitialValues(toValues(saved));
        form.setValues(toValues(saved));
        form.resetDirty(toValues(saved));
      },
      onError: (error) => applyServerErrors(form, error, toFormErrors),
    });
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <MultiSelect
          label={t('notifications.categories')}
          description={t('notifications.categoriesHelp')}
          placeholder={t('notifications.pickCategories')}
          data={categoryOptions(categoryName, i18n.language)}
          searchable
          clearable
          hidePickedOptions
          nothingFoundMessage={t('notifications.noCategory')}
          {...form.getInputProps('categories')}
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Select
            label={t('notifications.interval')}
            description={t('notifications.intervalHelp')}
            placeholder={t('notifications.pickInterval')}
            required
            allowDeselect={false}
            data={NOTIFICATION_INTERVALS.map((v) => ({ value: v, label: t(`notifications.intervals.${v}`) }))}
            {...form.getInputProps('interval')}
          />
          <Select
            label={t('notifications.period')}
            description={t('notifications.periodHelp')}
            placeholder={t('notifications.pickPeriod')}
            required
            allowDeselect={false}
            data={NOTIFICATION_WINDOWS.map((v) => ({ value: v, label: t(`notifications.periods.${v}`) }))}
            {...form.getInputProps('period')}
          />
        </SimpleGrid>
        <TagsInput
          label={t('notifications.emails')}
          description={t('notifications.emailsHelp')}
          placeholder={t('notifications.emailsPlaceholder')}
          splitChars={[',', ' ', ';']}
          acceptValueOnBlur
          clearable
          {...form.getInputProps('emails')}
        />
        <LastRun settings={settings} />
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending} disabled={!form.isDirty()}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
      <UnsavedChangesPrompt when={form.isDirty() && !save.isPending} />
    </form>
  );
}

/** The Notifications tab of a policy or of the customer's default policy: loading and error states, then the form. */
export function PolicyNotificationsTab({ owner }: { owner: NotificationsOwner }) {
  const { t } = useTranslation();
  const settings = useNotificationsQuery(owner);
  return (
    <Paper withBorder p="md" radius="md" maw={720}>
      <Title order={2} size="h4" mb="xs">
        {t('notifications.title')}
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        {t('notifications.help')}
      </Text>
      <QueryState query={settings}>{(s) => <PolicyNotificationsForm owner={owner} settings={s} />}</QueryState>
    </Paper>
  );
}
