import {
  CATEGORIES,
  FEED_FORMATS,
  FEED_INTERVAL_MAX_HOURS,
  type Feed,
  type FeedFormat,
  feedCreateSchema,
  feedUpdateSchema,
} from '@cordon/shared';
import { Button, Group, NumberInput, Select, Stack, Switch, TextInput } from '@mantine/core';
import { type UseFormReturnType, useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { useCategoryName } from '../../components/categoryName.ts';
import { schemaValidator, submitThrough } from '../../components/form.ts';
import { showSuccessToast } from '../../components/toast.ts';
import { useCreateFeedMutation, useUpdateFeedMutation } from './api.ts';

interface FeedFormValues {
  name: string;
  format: FeedFormat;
  category_id: string;
  url: string;
  interval_hours: number | string;
  enabled: boolean;
}

/** Form values → the schema's input (a Select gives the category id as text). */
const prepare = (v: FeedFormValues) => ({
  name: v.name,
  format: v.format,
  category_id: v.category_id === '' ? undefined : Number(v.category_id),
  url: v.url,
  interval_hours: v.interval_hours === '' ? 0 : Number(v.interval_hours),
  enabled: v.enabled,
});

/** The fields of both forms. */
function FeedFields({ form }: { form: Pick<UseFormReturnType<FeedFormValues>, 'getInputProps'> }) {
  const { t } = useTranslation();
  const categoryName = useCategoryName();
  return (
    <>
      <TextInput label={t('feeds.name')} required data-autofocus {...form.getInputProps('name')} />
      <Select
        label={t('feeds.format')}
        required
        allowDeselect={false}
        data={FEED_FORMATS.map((f) => ({ value: f, label: t(`feeds.formats.${f}`) }))}
        {...form.getInputProps('format')}
      />
      <Select
        label={t('feeds.category')}
        description={t('feeds.categoryHint')}
        required
        allowDeselect={false}
        searchable
        data={CATEGORIES.map((c) => ({ value: String(c.id), label: categoryName(c.id) }))}
        {...form.getInputProps('category_id')}
      />
      <TextInput
        label={t('feeds.url')}
        description={t('feeds.urlHint')}
        placeholder="https://example.org/hosts.txt"
        {...form.getInputProps('url')}
      />
      <NumberInput
        label={t('feeds.interval')}
        description={t('feeds.intervalHint')}
        min={0}
        max={FEED_INTERVAL_MAX_HOURS}
        allowDecimal={false}
        clampBehavior="none"
        {...form.getInputProps('interval_hours')}
      />
      <Switch label={t('feeds.enabled')} {...form.getInputProps('enabled', { type: 'checkbox' })} />
    </>
  );
}

/** The form's buttons: cancel and a submit labelled `submitLabel`. */
function Actions({ onCancel, pending, submitLabel }: { onCancel: () => void; pending: boolean; submitLabel: string }) {
  const { t } = useTranslation();
  return (
    <Group justify="flex-end" mt="sm">
      <Button variant="default" onClick={onCancel}>
        {t('common.cancel')}
      </Button>
      <Button type="submit" loading={pending}>
        {submitLabel}
      </Button>
    </Group>
  );
}

/** "New feed" (`feedCreateSchema`): name, format, category, optional https address, interval, schedule on. */
export function FeedCreateForm({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const create = useCreateFeedMutation();
  const form = useForm<FeedFormValues>({
    initialValues: { name: '', format: 'hosts', category_id: '', url: '', interval_hours: 24, enabled: true },
    validate: schemaValidator(feedCreateSchema, prepare),
  });
  const submit = submitThrough({
    form,
    schema: feedCreateSchema,
    prepare,
    mutation: create,
    onSuccess: () => {
      showSuccessToast(t('feeds.created'));
      onDone();
    },
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <FeedFields form={form} />
        <Actions onCancel={onDone} pending={create.isPending} submitLabel={t('common.create')} />
      </Stack>
    </form>
  );
}

/** "Edit feed" (`feedUpdateSchema`): the same fields, filled with `feed`. */
export function FeedEditForm({ feed, onDone }: { feed: Feed; onDone: () => void }) {
  const { t } = useTranslation();
  const update = useUpdateFeedMutation(feed.id);
  const form = useForm<FeedFormValues>({
    initialValues: {
      name: feed.name,
      format: feed.format,
      category_id: String(feed.category_id),
      url: feed.url ?? '',
      interval_hours: feed.interval_hours,
      enabled: feed.enabled,
    },
    validate: schemaValidator(feedUpdateSchema, prepare),
  });
  const submit = submitThrough({
    form,
    schema: feedUpdateSchema,
    prepare,
    mutation: update,
    onSuccess: () => {
      showSuccessToast(t('feeds.saved'));
      onDone();
    },
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <FeedFields form={form} />
        <Actions onCancel={onDone} pending={update.isPending} submitLabel={t('common.save')} />
      </Stack>
    </form>
  );
}
