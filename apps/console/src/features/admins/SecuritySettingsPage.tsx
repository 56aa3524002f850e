import { Paper, Stack, Switch, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useMspId } from '../../session/context.ts';
import { useEnforcementQuery, useSetEnforcementMutation } from './api.ts';

/**
 * `/msp/global_settings/security_settings` (spec-notes §2, §6 "An MSP can enforce two-factor
 * authentication"): the switch of `PUT /auth/msp/{id}/two-factor-auth/enforce`. When on, the MSP's
 * admins and its customers' admins without 2FA are sent to set it up at their next login.
 */
export function SecuritySettingsPage() {
  const { t } = useTranslation();
  const mspId = useMspId();
  const enforcement = useEnforcementQuery(mspId);
  const set = useSetEnforcementMutation(mspId);
  return (
    <>
      <PageHeader />
      <QueryState query={enforcement}>
        {(e) => (
          <Paper withBorder p="md" radius="md" maw={720}>
            <Stack>
              <Switch
                label={t('security.enforce')}
                checked={e.enforce_twofa}
                disabled={set.isPending}
                onChange={(event) =>
                  set.mutate(
                    { enforce: event.currentTarget.checked },
                    {
                      onSuccess: (r) =>
                        showSuccessToast(r.enforce_twofa ? t('security.enforcedOn') : t('security.enforcedOff')),
                    },
                  )
                }
              />
              <Text size="sm" c="dimmed">
                {t('security.enforceHelp')}
              </Text>
            </Stack>
          </Paper>
        )}
      </QueryState>
    </>
  );
}
