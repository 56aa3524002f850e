import { type DomainAction, listDomainSchema } from '@cordon/shared';
import { Button, Group, Modal, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { IconLock, IconWorld } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useApi } from '../../api/context.ts';
import { showErrorToast, showSuccessToast } from '../../components/toast.ts';
import { useEnforcementQuery } from '../admins/api.ts';
import { enforceTwoFactor, useAddGlobalEntryMutation } from './customerStatusApi.ts';

/**
 * "Add a global entry" from the customer list (issue 29): the API keeps one global allow and one
 * global block list per MSP (`POST /global/domains/{action}?msp_id=`, spec-notes §7 Domains), not one
 * per customer, so the entry applies to every customer of the MSP; the dialog says so.
 */
function GlobalEntryButton({ mspId }: { mspId: number }) {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(false);
  const [list, setList] = useState<DomainAction>('block');
  const [domain, setDomain] = useState('');
  const [error, setError] = useState<string | null>(null);
  const create = useAddGlobalEntryMutation(mspId);

  const close = () => {
    setOpened(false);
    setDomain('');
    setError(null);
  };
  const submit = async () => {
    const parsed = listDomainSchema.safeParse(domain.trim());
    if (!parsed.success) {
      setError(t('customerStatus.globalEntry.invalid'));
      return;
    }
    try {
      await create.mutateAsync({ list, domain: parsed.data });
      showSuccessToast(t(`customerStatus.globalEntry.added_${list}`, { domain: parsed.data }));
      close();
    } catch {
      showErrorToast(t('customerStatus.actionFailed'));
    }
  };

  return (
    <>
      <Button variant="light" leftSection={<IconWorld size={16} aria-hidden />} onClick={() => setOpened(true)}>
        {t('customerStatus.globalEntry.open')}
      </Button>
      <Modal opened={opened} onClose={close} title={t('customerStatus.globalEntry.title')} centered>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <Stack gap="sm">
            <Text size="sm" data-testid="global-entry-scope">
              {t('customerStatus.globalEntry.scope')}
            </Text>
            <SegmentedControl
              aria-label={t('customerStatus.globalEntry.list')}
              value={list}
              onChange={(v) => setList(v as DomainAction)}
              data={[
                { value: 'block', label: t('customerStatus.globalEntry.block') },
                { value: 'allow', label: t('customerStatus.globalEntry.allow') },
              ]}
            />
            <TextInput
              label={t('customerStatus.globalEntry.domain')}
              placeholder="example.com"
              value={domain}
              onChange={(e) => {
                setDomain(e.currentTarget.value);
                setError(null);
              }}
              error={error}
              required
              data-autofocus
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={close} disabled={create.isPending}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" loading={create.isPending}>
                {t('customerStatus.globalEntry.submit')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

/**
 * "Enforce 2FA" from the customer list (issue 29): the API only enforces per MSP
 * (`PUT /auth/msp/{id}/two-factor-auth/enforce`, spec-notes §7 Auth), which covers the MSP's admins
 * and its customers' admins; there is no per-customer switch. Disabled once enforced.
 */
function EnforceTwoFactorButton({ mspId }: { mspId: number }) {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(false);
  const current = useEnforcementQuery(mspId);
  const api = useApi();
  const [pending, setPending] = useState(false);
  const enforced = current.data?.enforce_twofa === true;

  const confirm = async () => {
    setPending(true);
    try {
      await enforceTwoFactor(api, mspId);
      await current.refetch();
      showSuccessToast(t('customerStatus.enforce2fa.done'));
    } catch {
      showErrorToast(t('customerStatus.actionFailed'));
    } finally {
      setPending(false);
    }
  };

  return (
    <>
      <Button
        variant="light"
        leftSection={<IconLock size={16} aria-hidden />}
        disabled={enforced || current.isPending}
        onClick={() => setOpened(true)}
      >
        {enforced ? t('customerStatus.enforce2fa.already') : t('customerStatus.enforce2fa.open')}
      </Button>
      {/* Not the red ConfirmDialog: enforcing 2FA loses nothing, so the confirmation is a primary button. */}
      <Modal opened={opened} onClose={() => setOpened(false)} title={t('customerStatus.enforce2fa.title')} centered>
        <Text mb="md">{t('customerStatus.enforce2fa.text')}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setOpened(false)} disabled={pending}>
            {t('common.cancel')}
          </Button>
          <Button
            data-autofocus
            loading={pending}
            onClick={() => {
              void confirm().finally(() => setOpened(false));
            }}
          >
            {t('customerStatus.enforce2fa.confirm')}
          </Button>
        </Group>
      </Modal>
    </>
  );
}

/** The MSP-wide actions next to the customer list's bulk actions: they do not depend on the selection. */
export function MspWideActions({ mspId }: { mspId: number }) {
  return (
    <>
      <GlobalEntryButton mspId={mspId} />
      <EnforceTwoFactorButton mspId={mspId} />
    </>
  );
}
