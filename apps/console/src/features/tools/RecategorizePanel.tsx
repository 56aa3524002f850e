import {
  CATEGORIES,
  RECATEGORIZE_STATUSES,
  type RecategorizeRequest,
  type RecategorizeStatus,
  recategorizeCreateSchema,
} from '@cordon/shared';
import { Badge, Button, Group, Paper, Select, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCategoryName } from '../../components/categoryName.ts';
import { ListToolbar, QueryDataTable, useListState } from '../../components/DataTable.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { useFormat } from '../../components/format.ts';
import { showSuccessToast } from '../../components/toast.ts';
import {
  type RecategorizeSortKey,
  useRecategorizationsQuery,
  useRequestRecategorizationMutation,
  useReviewRecategorizationMutation,
} from './api.ts';

interface RequestValues {
  domain: string;
  category: string | null;
  comment: string;
}

const prepare = (v: RequestValues) => ({
  domain: v.domain,
  category_id: v.category === null ? Number.NaN : Number(v.category),
  comment: v.comment,
});

/** The colour of a request's status (as the console's status labels: orange waiting, green done, grey refused). */
const STATUS_COLOR: Readonly<Record<RecategorizeStatus, string>> = {
  pending: 'orange',
  approved: 'teal',
  rejected: 'gray',
};

/** The request form: a domain, the category it should have, a comment. */
function RequestForm() {
  const { t } = useTranslation();
  const categoryName = useCategoryName();
  const ask = useRequestRecategorizationMutation();
  const form = useForm<RequestValues>({
    initialValues: { domain: '', category: null, comment: '' },
    validate: schemaValidator(recategorizeCreateSchema, prepare),
  });
  const submit = form.onSubmit((values) =>
    ask.mutate(recategorizeCreateSchema.parse(prepare(values)), {
      onSuccess: () => {
        showSuccessToast(t('tools.requestSent'));
        form.reset();
      },
      onError: (error) => applyServerErrors(form, error, (e) => ({ ...e, category: e['category_id'] })),
    }),
  );
  return (
    <Paper withBorder p="md" radius="md" maw={720}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text size="sm" c="dimmed">
            {t('tools.recategorizeIntro')}
          </Text>
          <TextInput label={t('tools.domain')} placeholder="example.com" required {...form.getInputProps('domain')} />
          <Select
            label={t('tools.newCategory')}
            placeholder={t('tools.selectCategory')}
            required
            allowDeselect={false}
            searchable
            data={CATEGORIES.filter((c) => c.id !== 0).map((c) => ({ value: String(c.id), label: categoryName(c.id) }))}
            {...form.getInputProps('category')}
            error={form.errors['category'] ?? form.errors['category_id']}
          />
          <Textarea
            label={t('tools.comment')}
            autosize
            minRows={2}
            maxLength={200}
            {...form.getInputProps('comment')}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={ask.isPending}>
              {t('tools.sendRequest')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

/** Approve / Reject of one pending request (system admin). */
function ReviewButtons({ request }: { request: RecategorizeRequest }) {
  const { t } = useTranslation();
  const review = useReviewRecategorizationMutation(request.id);
  const run = (action: 'approve' | 'reject') =>
    review.mutate(
      { action },
      {
        onSuccess: () =>
          showSuccessToast(t(action === 'approve' ? 'tools.approved' : 'tools.rejected', { domain: request.domain })),
      },
    );
  return (
    <Group gap="xs" wrap="nowrap">
      <Button
        size="compact-sm"
        onClick={() => run('approve')}
        loading={review.isPending}
        aria-label={t('tools.approveOf', { domain: request.domain })}
      >
        {t('tools.approve')}
      </Button>
      <Button
        size="compact-sm"
        variant="default"
        onClick={() => run('reject')}
        disabled={review.isPending}
        aria-label={t('tools.rejectOf', { domain: request.domain })}
      >
        {t('tools.reject')}
      </Button>
    </Group>
  );
}

/**
 * Recategorize Domain (spec-notes §2 secondary navigation; spec-notes §7 `POST /tools/recategorize`): the
 * request form and the requests the caller sees, with status filter, search, sort and paging; the
 * system admin reviews them (an approval reaches the resolver within a second).
 */
export function RecategorizePanel({ canReview }: { canReview: boolean }) {
  const { t } = useTranslation();
  const categoryName = useCategoryName();
  const fmt = useFormat();
  const list = useListState<RecategorizeSortKey>({ key: 'created_at', dir: 'desc' });
  const [status, setStatus] = useState<RecategorizeStatus | null>(canReview ? 'pending' : null);
  const requests = useRecategorizationsQuery({ ...list.query, ...(status ? { status } : {}) });
  return (
    <Stack gap="lg">
      <RequestForm />
      <Stack gap="sm">
        <Title order={2} size="h4">
          {canReview ? t('tools.reviewQueue') : t('tools.yourRequests')}
        </Title>
        <ListToolbar
          list={list}
          searchLabel={t('tools.searchDomains')}
          actions={
            <Select
              aria-label={t('tools.status')}
              placeholder={t('tools.allStatuses')}
              clearable
              value={status}
              onChange={(v) => {
                setStatus(v as RecategorizeStatus | null);
                list.setPage(1);
              }}
              data={RECATEGORIZE_STATUSES.map((s) => ({ value: s, label: t(`tools.statuses.${s}`) }))}
              w={180}
            />
          }
        />
        <QueryDataTable
          query={requests}
          list={list}
          testId="recategorize-table"
          minWidth={720}
          rowKey={(r) => r.id}
          columns={[
            { key: 'domain', header: t('tools.domain'), sortKey: 'domain', render: (r) => r.domain, td: { fw: 500 } },
            {
              key: 'current',
              header: t('tools.currentCategories'),
              render: (r) =>
                r.current_categories.length === 0 ? (
                  <Text size="sm">{t('tools.unclassified')}</Text>
                ) : (
                  <Group gap={4}>
                    {r.current_categories.map((c) => (
                      <Badge key={c.id} variant="outline" color="gray" size="sm">
                        {categoryName(c.id, c.name)}
                      </Badge>
                    ))}
                  </Group>
                ),
            },
            {
              key: 'asked',
              header: t('tools.newCategory'),
              render: (r) => categoryName(r.category.id, r.category.name),
            },
            { key: 'by', header: t('tools.requestedBy'), render: (r) => r.requested_by },
            {
              key: 'created',
              header: t('tools.requestedAt'),
              sortKey: 'created_at',
              render: (r) => fmt.dateTime(r.created_at),
            },
            {
              key: 'status',
              header: t('tools.status'),
              sortKey: 'status',
              render: (r) =>
                canReview && r.status === 'pending' ? (
                  <ReviewButtons request={r} />
                ) : (
                  <Badge variant="light" color={STATUS_COLOR[r.status]} data-status={r.status}>
                    {t(`tools.statuses.${r.status}`)}
                  </Badge>
                ),
            },
          ]}
        />
      </Stack>
    </Stack>
  );
}
