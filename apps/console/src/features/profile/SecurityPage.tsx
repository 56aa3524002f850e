import { Alert, Button, Group, Modal, Paper, PasswordInput, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { RecoveryCodes, TwoFactorEnrolment } from '../../components/TwoFactorEnrolment.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { StorageKeys } from '../../session/session.ts';
import { useDisableTwoFactorMutation, useProfileQuery, useRegenerateCodesMutation } from './api.ts';

/** "Turn off": asks for the password first (a left-open session cannot switch 2FA off). */
function DisableButton() {
  const { t } = useTranslation();
  const [opened, { open, close }] = useDisclosure(false);
  const [password, setPassword] = useState('');
  const disable = useDisableTwoFactorMutation();
  const queryClient = useQueryClient();
  return (
    <>
      <Button color="red" variant="light" onClick={open}>
        {t('twoFactor.disable')}
      </Button>
      <Modal opened={opened} onClose={close} title={t('twoFactor.disable')} centered>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            disable.mutate(
              { password },
              {
                onSuccess: async () => {
                  localStorage.setItem(StorageKeys.twoFactorAuthEnabled, 'false');
                  await queryClient.invalidateQueries({ queryKey: ['auth'] });
                  showSuccessToast(t('twoFactor.disabled'));
                  setPassword('');
                  close();
                },
              },
            );
          }}
        >
          <Stack>
            <Text>{t('twoFactor.disableText')}</Text>
            <PasswordInput
              label={t('profile.currentPassword')}
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              error={
                disable.error && 'fields' in disable.error
                  ? (disable.error as { fields?: Record<string, string> }).fields?.['password']
                  : undefined
              }
              data-autofocus
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" color="red" loading={disable.isPending} disabled={password === ''}>
                {t('twoFactor.disable')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

/**
 * `/profile/security` (spec-notes §2 "profile security"): two-factor authentication on or off (enrolment
 * with a QR code; recovery codes shown once) and new recovery codes.
 */
export function SecurityPage() {
  const { t } = useTranslation();
  const profile = useProfileQuery();
  const regenerate = useRegenerateCodesMutation();
  const queryClient = useQueryClient();
  const [enrolling, setEnrolling] = useState(false);
  const [codes, setCodes] = useState<string[] | null>(null);
  return (
    <>
      <PageHeader />
      <QueryState query={profile}>
        {(p) => (
          <Paper withBorder p="md" radius="md" maw={640}>
            {codes ? (
              <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />
            ) : p.twoFactorAuthEnabled ? (
              <Stack>
                <Alert color="green" data-testid="twofa-on">
                  {t('twoFactor.isOn', { count: p.recovery_codes_left })}
                </Alert>
                {p.enforce_twofa ? <Text size="sm">{t('twoFactor.enforcedByMsp')}</Text> : null}
                <Group wrap="wrap">
                  <Button
                    variant="light"
                    loading={regenerate.isPending}
                    onClick={() =>
                      regenerate.mutate(undefined, {
                        onSuccess: (r) => {
                          setCodes(r.backupCodes);
                          void queryClient.invalidateQueries({ queryKey: ['auth'] });
                        },
                      })
                    }
                  >
                    {t('twoFactor.regenerate')}
                  </Button>
                  {p.enforce_twofa ? null : <DisableButton />}
                </Group>
              </Stack>
            ) : enrolling ? (
              <TwoFactorEnrolment
                onEnrolled={(r) => {
                  localStorage.setItem(StorageKeys.twoFactorAuthEnabled, 'true');
                  setEnrolling(false);
                  setCodes(r.backupCodes);
                  showSuccessToast(t('twoFactor.enabled'));
                  void queryClient.invalidateQueries({ queryKey: ['auth'] });
                }}
              />
            ) : (
              <Stack>
                <Text data-testid="twofa-off">{t('twoFactor.isOff')}</Text>
                <Group>
                  <Button onClick={() => setEnrolling(true)}>{t('twoFactor.setUp')}</Button>
                </Group>
              </Stack>
            )}
          </Paper>
        )}
      </QueryState>
    </>
  );
}
