import { Button, Group, Text } from '@mantine/core';
import { IconLock, IconWorld } from '@tabler/icons-react';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useApi } from '../../api/context.ts';
import { DeferredModal } from '../../components/Deferred.tsx';
import { showErrorToast, showSuccessToast } from '../../components/toast.ts';
import { useEnforcementQuery } from '../admins/api.ts';
import { loadActions } from './customerStatusApi.ts';

const GlobalEntryForm = lazy(() => import('./GlobalEntryForm.tsx').then((m) => ({ default: m.GlobalEntryForm })));

/**
 * "Add a global entry" from the customer list (issue 29): the API keeps one global allow and one
 * global block list per MSP (`POST /global/domains/{action}?msp_id=`, spec-notes §7 Domains), not one
 * per customer, so the entry applies to every customer of the MSP; the dialog says so. The form
 * loads when the dialog first opens (bench/README.md "Console first load").
 */
function GlobalEntryButton({ mspId }: { mspId: number }) {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(false);
  const close = () => setOpened(false);
  return (
    <>
      <Button variant="light" leftSection={<IconWorld size={16} aria-hidden />} onClick={() => setOpened(true)}>
        {t('customerStatus.globalEntry.open')}
      </Button>
      <DeferredModal opened={opened} onClose={close} title={t('customerStatus.globalEntry.title')} centered>
        <Suspense fallback={null}>
          <GlobalEntryForm mspId={mspId} onDone={close} />
        </Suspense>
      </DeferredModal>
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
      await (await loadActions()).enforceTwoFactor(api, mspId);
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
      <DeferredModal
        opened={opened}
        onClose={() => setOpened(false)}
        title={t('customerStatus.enforce2fa.title')}
        centered
      >
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
      </DeferredModal>
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
