import { HOME_PATH_BY_ROLE } from '@cordon/shared';
import { Paper, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { RecoveryCodes, TwoFactorEnrolment } from '../../components/TwoFactorEnrolment.tsx';
import { useSessionStore } from '../../session/context.ts';

/** Where the login keeps the enrolment-only token for this page (never in local storage). */
export interface SetupState {
  enrolToken: string;
}

/**
 * `/login/two-factor-setup` (spec-notes §2 "login two-factor setup"): the login of an admin whose MSP
 * enforces 2FA lands here with an enrolment-only token; enrolling logs it in, after its recovery
 * codes have been shown once.
 */
export function TwoFactorSetupPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const session = useSessionStore();
  const queryClient = useQueryClient();
  const state = useLocation().state as SetupState | null;
  const [done, setDone] = useState<{ codes: string[]; token: string } | null>(null);
  if (!state?.enrolToken) return <Navigate to="/" replace />;
  const finish = () => {
    if (!done) return;
    queryClient.clear();
    const claims = session.login(done.token);
    void navigate(HOME_PATH_BY_ROLE[claims.vue_role], { replace: true });
  };
  return (
    <Paper withBorder shadow="sm" p="xl" radius="md" maw={520}>
      <Title order={1} size="h3" mb="sm">
        {t('pages.twoFactorSetup')}
      </Title>
      {done ? (
        <RecoveryCodes codes={done.codes} onDone={finish} />
      ) : (
        <>
          <Text mb="md">{t('login.enforcedSetup')}</Text>
          <TwoFactorEnrolment
            token={state.enrolToken}
            onEnrolled={(r) => {
              if (r.accessToken) setDone({ codes: r.backupCodes, token: r.accessToken });
            }}
          />
        </>
      )}
    </Paper>
  );
}
