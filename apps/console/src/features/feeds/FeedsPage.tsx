import { Constants, type Feed, Messages } from '@cordon/shared';
import { ActionIcon, Anchor, Badge, Button, FileInput, Group, Modal, Stack, Text, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconEdit, IconPlayerPlay, IconPlus, IconTrash, IconUpload } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiCallError } from '../../api/client.ts';
import { useCategoryName } from '../../components/categoryName.ts';
import { ListToolbar, QueryDataTable, useListState } from '../../components/DataTable.tsx';
import { useFormat } from '../../components/format.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { SafeDeleteDialog } from '../../components/SafeDeleteDialog.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import {
  type FeedSortKey,
  useDeleteFeedMutation,
  useFeedDependantsFetcher,
  useFeedsQuery,
  useRunFeedMutation,
  useUploadFeedMutation,
} from './api.ts';
import { FeedCreateForm, FeedEditForm } from './FeedForm.tsx';

/** A date and time in the user's time zone and language, or "Never". */
function When({ iso }: { iso: string | null }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  if (iso === null) return <Text size="sm">{t('feeds.never')}</Text>;
  return (
    <Text size="sm" component="time" dateTime={iso}>
      {fmt.dateTime(iso)}
    </Text>
  );
}

/** The last run's outcome: OK with the names held, or Error with its text. */
function LastOutcome({ feed }: { feed: Feed }) {
  const { t } = useTranslation();
  if (feed.last_status === null) return <Text size="sm">—</Text>;
  if (feed.last_status === 'ok') {
    return (
      <Badge color="teal" variant="dot" size="sm">
        {t('feeds.ok')}
      </Badge>
    );
  }
  return (
    <Stack gap={2}>
      <Badge color="red" variant="dot" size="sm">
        {t('feeds.error')}
      </Badge>
      <Text size="xs" c="red.9" style={{ overflowWrap: 'anywhere' }}>
        {feed.last_error}
      </Text>
    </Stack>
  );
}

/** "Upload file": a feed file (≤ 1 MB, checked before sending) imported as the feed's names. */
function UploadForm({ feed, onDone }: { feed: Feed; onDone: () => void }) {
  const { t } = useTranslation();
  const upload = useUploadFeedMutation(feed.id);
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const choose = (next: File | null) => {
    setFile(next);
    setError(next !== null && next.size > Constants.maxUploadBytes ? Messages.fileTooLarge : null);
  };
  const submit = (ev: React.FormEvent) => {
    ev.preventDefault();
    if (file === null) return setError(Messages.required);
    if (file.size > Constants.maxUploadBytes) return;
    upload.mutate(file, {
      onSuccess: (run) => {
        showSuccessToast(t('feeds.uploaded', { count: run.rows }));
        onDone();
      },
      onError: (e) => setError(e instanceof ApiCallError ? (e.fields?.['file'] ?? e.message) : String(e)),
    });
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Text size="sm">{t('feeds.uploadHelp')}</Text>
        <FileInput
          label={t('feeds.file')}
          accept=".txt,.hosts,.list,text/plain"
          value={file}
          onChange={choose}
          error={error}
          clearable
          data-autofocus
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={upload.isPending} leftSection={<IconUpload size={16} aria-hidden />}>
            {t('feeds.upload')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** A row's actions: run now (feeds with an address), upload, edit, delete (the names it takes shown; typed name when any). */
function FeedActions({ feed, onDeleted }: { feed: Feed; onDeleted: () => void }) {
  const { t } = useTranslation();
  const run = useRunFeedMutation(feed.id);
  // A feed holding names is deleted once its name is typed (docs/api.md "Deletes of things in use").
  const holdsNames = (feed.last_rows ?? 0) > 0;
  const remove = useDeleteFeedMutation(feed.id, holdsNames ? feed.name : undefined);
  const fetchDependants = useFeedDependantsFetcher();
  const [modal, setModal] = useState<'upload' | 'edit' | 'delete' | null>(null);
  const close = () => setModal(null);
  const name = feed.name;
  return (
    <Group gap={4} wrap="nowrap" justify="flex-end">
      {feed.url ? (
        <Tooltip label={t('feeds.run')}>
          <ActionIcon
            variant="subtle"
            aria-label={t('feeds.runRow', { name })}
            loading={run.isPending}
            onClick={() =>
              run.mutate(undefined, { onSuccess: (r) => showSuccessToast(t('feeds.ran', { count: r.rows })) })
            }
          >
            <IconPlayerPlay size={16} aria-hidden />
          </ActionIcon>
        </Tooltip>
      ) : null}
      <Tooltip label={t('feeds.upload')}>
        <ActionIcon variant="subtle" aria-label={t('feeds.uploadRow', { name })} onClick={() => setModal('upload')}>
          <IconUpload size={16} aria-hidden />
        </ActionIcon>
      </Tooltip>
      <Tooltip label={t('feeds.edit')}>
        <ActionIcon variant="subtle" aria-label={t('feeds.editRow', { name })} onClick={() => setModal('edit')}>
          <IconEdit size={16} aria-hidden />
        </ActionIcon>
      </Tooltip>
      <ActionIcon
        variant="subtle"
        color="red"
        aria-label={t('feeds.deleteRow', { name })}
        onClick={() => setModal('delete')}
      >
        <IconTrash size={16} aria-hidden />
      </ActionIcon>
      <Modal opened={modal === 'upload'} onClose={close} title={t('feeds.uploadTitle', { name })}>
        <UploadForm feed={feed} onDone={close} />
      </Modal>
      <Modal opened={modal === 'edit'} onClose={close} title={t('feeds.edit')} size="lg">
        <FeedEditForm feed={feed} onDone={close} />
      </Modal>
      <SafeDeleteDialog
        opened={modal === 'delete'}
        onClose={close}
        title={t('feeds.confirmDeleteTitle')}
        text={t('feeds.confirmDeleteText', { name })}
        items={[{ id: feed.id, name }]}
        kind="feeds"
        fetchDependants={fetchDependants}
        {...(holdsNames ? { confirmName: name } : {})}
        loading={remove.isPending}
        onConfirm={() =>
          remove.mutateAsync(undefined).then(() => {
            showSuccessToast(t('feeds.deleted'));
            onDeleted();
          })
        }
      />
    </Group>
  );
}

/**
 * `/system/global_settings/category_feeds` (docs/decisions.md "Category feeds"; the spec names no
 * page): the category feed sources with their format, category, schedule and last run (outcome,
 * names held, error), with paging, sort and search; new, edit, run now, upload and delete.
 */
export function FeedsPage() {
  const { t } = useTranslation();
  const categoryName = useCategoryName();
  const fmt = useFormat();
  const list = useListState<FeedSortKey>({ key: 'name', dir: 'asc' });
  const feedsQuery = useFeedsQuery(list.query);
  const rows = feedsQuery.data?.data ?? [];
  const [creating, { open, close }] = useDisclosure(false);
  const onDeleted = () => list.afterDelete(1, rows.length);
  return (
    <>
      <PageHeader
        actions={
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={open}>
            {t('feeds.new')}
          </Button>
        }
      />
      <Text size="sm" mb="md" maw={760}>
        {t('feeds.intro')}
      </Text>
      <ListToolbar list={list} />
      <QueryDataTable
        query={feedsQuery}
        list={list}
        testId="feeds-table"
        minWidth={820}
        emptyText={t('feeds.empty')}
        rowKey={(f) => f.id}
        columns={[
          {
            key: 'name',
            header: t('feeds.name'),
            sortKey: 'name',
            render: (f) => (
              <Stack gap={0}>
                <Text size="sm" fw={500}>
                  {f.name}
                </Text>
                {f.url ? (
                  <Anchor href={f.url} size="xs" target="_blank" rel="noreferrer" style={{ overflowWrap: 'anywhere' }}>
                    {f.url}
                  </Anchor>
                ) : null}
              </Stack>
            ),
          },
          {
            key: 'format',
            header: t('feeds.format'),
            sortKey: 'format',
            render: (f) => t(`feeds.formats.${f.format}`),
          },
          { key: 'category', header: t('feeds.category'), render: (f) => categoryName(f.category_id, f.category_name) },
          {
            key: 'schedule',
            header: t('feeds.schedule'),
            render: (f) => (
              <Group gap={6} wrap="nowrap">
                <Text size="sm">
                  {f.url && f.interval_hours > 0
                    ? t('feeds.everyHours', { count: f.interval_hours })
                    : t('feeds.manual')}
                </Text>
                <StatusBadge status={f.enabled ? 'enabled' : 'disabled'} size="xs" />
              </Group>
            ),
          },
          {
            key: 'last_run_at',
            header: t('feeds.lastRun'),
            sortKey: 'last_run_at',
            render: (f) => <When iso={f.last_run_at} />,
          },
          { key: 'outcome', header: '', render: (f) => <LastOutcome feed={f} /> },
          {
            key: 'rows',
            header: t('feeds.names'),
            render: (f) => (f.last_rows === null ? '—' : fmt.number(f.last_rows)),
          },
          { key: 'actions', header: '', render: (f) => <FeedActions feed={f} onDeleted={onDeleted} /> },
        ]}
      />
      <Modal opened={creating} onClose={close} title={t('feeds.new')} size="lg">
        <FeedCreateForm onDone={close} />
      </Modal>
    </>
  );
}
