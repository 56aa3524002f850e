import type { DomainEntry } from '@cordon/shared';
import { Anchor, Badge, Button, Group, Modal, Paper, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconArrowLeft, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useParams, useSearchParams } from 'react-router';
import {
  useDeleteDomainEntryMutation,
  useDomainEntryQuery,
  useUpdateDomainEntryMutation,
} from '../../components/domainList/api.ts';
import { DomainEntryForm } from '../../components/domainList/DomainEntryForm.tsx';
import type { DomainListOwner } from '../../components/domainList/logic.ts';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId, useMspId } from '../../session/context.ts';

/** The entry's list and policy, and "Delete" behind a confirmation naming the domain and its list. */
function EntryActions(props: { owner: DomainListOwner; entry: DomainEntry; back: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const remove = useDeleteDomainEntryMutation(props.owner, props.entry.id);
  const [opened, { open, close }] = useDisclosure(false);
  const list = props.entry.object === 'allow' ? t('domainList.allowed') : t('domainList.blocked');
  return (
    <Group justify="space-between" wrap="wrap">
      <Group gap="xs">
        <Badge variant="light" color={props.entry.object === 'allow' ? 'teal' : 'red'}>
          {list}
        </Badge>
        {props.entry.policyname ? (
          <Text size="sm" c="dimmed">
            {t('domains.policy')}: {props.entry.policyname}
          </Text>
        ) : null}
      </Group>
      <Button color="red" variant="light" leftSection={<IconTrash size={16} />} onClick={open}>
        {t('common.delete')}
      </Button>
      <Modal opened={opened} onClose={close} title={t('domainList.confirmDeleteTitle')} centered>
        <Text mb="md" style={{ overflowWrap: 'anywhere' }}>
          {t('domainList.confirmDeleteText', { domain: props.entry.domain, list })}
        </Text>
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
                  showSuccessToast(t('domainList.deleted'));
                  navigate(props.back);
                },
                onSettled: close,
              })
            }
          >
            {t('common.delete')}
          </Button>
        </Group>
      </Modal>
    </Group>
  );
}

/** One entry: its list, the edit form (its list kept), and delete. */
function DomainEntryDetail(props: { owner: DomainListOwner; entryId: number; back: string }) {
  const { t } = useTranslation();
  const entry = useDomainEntryQuery(props.owner, props.entryId);
  const update = useUpdateDomainEntryMutation(props.owner, props.entryId);
  usePageSubtitle(entry.data?.domain);
  return (
    <>
      <Anchor component={Link} to={props.back} size="sm">
        <IconArrowLeft size={14} style={{ verticalAlign: 'middle' }} /> {t('domains.back')}
      </Anchor>
      <PageHeader />
      <QueryState query={entry}>
        {(e) => (
          <Stack maw={720}>
            <Paper withBorder p="md" radius="md">
              <EntryActions owner={props.owner} entry={e} back={props.back} />
            </Paper>
            <Paper withBorder p="md" radius="md">
              <DomainEntryForm
                key={e.updated_at}
                entry={e}
                list={e.object}
                pending={update.isPending}
                submit={(_list, body) => update.mutateAsync(body).then(() => showSuccessToast(t('domainList.saved')))}
              />
            </Paper>
          </Stack>
        )}
      </QueryState>
    </>
  );
}

/** A positive integer from a URL part, else null. */
function positiveId(text: string | null | undefined): number | null {
  const n = Number(text);
  return text && /^\d+$/.test(text) && Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * `/customer/content_filtering/domains/{id}?policy={policyId}` (spec-notes §2 "domain id"): an entry of one
 * of the customer's policies (the API addresses entries through their policy, so the list links
 * carry it). A missing or malformed id or policy opens 404; a foreign one answers 404 from the API.
 */
export function CustomerDomainEntryPage() {
  const customerId = useCustomerId();
  const id = positiveId(useParams().id);
  const [params] = useSearchParams();
  const policyId = positiveId(params.get('policy'));
  if (id === null || policyId === null) return <Navigate to="/404" replace />;
  return (
    <DomainEntryDetail
      owner={{ kind: 'policy', policyId, userId: customerId }}
      entryId={id}
      back={`/customer/content_filtering/domains?policy=${policyId}`}
    />
  );
}

/** `/msp/global_settings/global_domains/{id}` (spec-notes §2 "global domain id"): an entry of the MSP's global lists. */
export function MspGlobalDomainEntryPage() {
  const mspId = useMspId();
  const id = positiveId(useParams().id);
  if (id === null) return <Navigate to="/404" replace />;
  return (
    <DomainEntryDetail owner={{ kind: 'global', mspId }} entryId={id} back="/msp/global_settings/global_domains" />
  );
}

/** `/system/global_settings/global_domains/{id}` (spec-notes §2 "global domain id"): an entry of the system's global lists. */
export function SystemGlobalDomainEntryPage() {
  const id = positiveId(useParams().id);
  if (id === null) return <Navigate to="/404" replace />;
  return <DomainEntryDetail owner={{ kind: 'global' }} entryId={id} back="/system/global_settings/global_domains" />;
}
