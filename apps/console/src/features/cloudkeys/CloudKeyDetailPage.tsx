import type { CloudKey } from '@cordon/shared';
import { Anchor, Button, Group, Modal, Paper, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconArrowLeft, IconRefresh, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import { useCloudKeyQuery, useDeleteCloudKeyMutation, useUpdateCloudKeyMutation } from './api.ts';
import { CloudKeyForm } from './CloudKeyForm.tsx';

const LIST = '/customer/content_filtering/cloud_keys';

/** Times used with "Reset uses", and "Delete" behind a confirmation dialog. */
function KeyActions({ customerId, cloudKey }: { customerId: number; cloudKey: CloudKey }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const update = useUpdateCloudKeyMutation(customerId, cloudKey.id);
  const remove = useDeleteCloudKeyMutation(customerId, cloudKey.id);
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <Stack gap="xs">
      <Text>
        {t('cloudkeys.timesUsed')}: <strong data-testid="times-used">{cloudKey.times_used}</strong>
        {cloudKey.max_uses === null ? '' : ` / ${cloudKey.max_uses}`}
      </Text>
      <Group wrap="wrap">
        <Button
          variant="light"
          leftSection={<IconRefresh size={16} />}
          loading={update.isPending}
          disabled={cloudKey.times_used === 0}
          onClick={() =>
            update.mutate({ reset_uses: true }, { onSuccess: () => showSuccessToast(t('cloudkeys.usesReset')) })
          }
        >
          {t('cloudkeys.resetUses')}
        </Button>
        <Button color="red" variant="light" leftSection={<IconTrash size={16} />} onClick={open}>
          {t('common.delete')}
        </Button>
      </Group>
      <Modal opened={opened} onClose={close} title={t('cloudkeys.confirmDeleteTitle')} centered>
        <Text mb="md">{t('cloudkeys.confirmDeleteText', { key: cloudKey.key })}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={close} disabled={remove.isPending}>
            {t('common.cancel')}
          </Button>
          <Button
            color="red"
            data-autofocus
            loading={remove.isPending}
            onClick={() =>
              remove.mutate(undefined, {
                onSuccess: () => {
                  showSuccessToast(t('cloudkeys.deleted'));
                  navigate(LIST);
                },
                onSettled: close,
              })
            }
          >
            {t('common.delete')}
          </Button>
        </Group>
      </Modal>
    </Stack>
  );
}

function CloudKeyDetail({ id }: { id: number }) {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const key = useCloudKeyQuery(customerId, id);
  const update = useUpdateCloudKeyMutation(customerId, id);
  usePageSubtitle(key.data?.key);
  return (
    <>
      <Anchor component={Link} to={LIST} size="sm">
        <IconArrowLeft size={14} style={{ verticalAlign: 'middle' }} /> {t('cloudkeys.back')}
      </Anchor>
      <PageHeader />
      <QueryState query={key}>
        {(k) => (
          <Stack maw={720}>
            <Paper withBorder p="md" radius="md">
              <KeyActions customerId={customerId} cloudKey={k} />
            </Paper>
            <Paper withBorder p="md" radius="md">
              <CloudKeyForm
                key={k.updated_at}
                cloudKey={k}
                pending={update.isPending}
                submit={(body) => update.mutateAsync(body).then(() => showSuccessToast(t('cloudkeys.saved')))}
              />
            </Paper>
          </Stack>
        )}
      </QueryState>
    </>
  );
}

/** `/customer/content_filtering/cloud_keys/{id}` (spec-notes §2 "key id"): edit, reset uses, delete. */
export function CloudKeyDetailPage() {
  const id = Number(useParams().id);
  if (!Number.isInteger(id) || id <= 0) return <Navigate to="/404" replace />;
  return <CloudKeyDetail id={id} />;
}
