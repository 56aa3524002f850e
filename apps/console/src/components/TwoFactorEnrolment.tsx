import { authEndpoints } from '@cordon/shared';
import { Alert, Button, Code, CopyButton, Group, Image, List, Loader, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiCallError } from '../api/client.ts';
import { useApi } from '../api/context.ts';

/**
 * The ten recovery codes, shown once (spec-notes §4): in order, with copy and a reminder that each works
 * once and only the next one in the list is accepted.
 */
export function RecoveryCodes({ codes, onDone }: { codes: readonly string[]; onDone: () => void }) {
  const { t } = useTranslation();
  const text = codes.join('\n');
  return (
    <Stack>
      <Alert color="yellow">{t('twoFactor.codesOnce')}</Alert>
      <List type="ordered" data-testid="recovery-codes" spacing={2}>
        {codes.map((c) => (
          <List.Item key={c}>
            <Code>{c}</Code>
          </List.Item>
        ))}
      </List>
      <Group>
        <CopyButton value={text}>
          {({ copied, copy }) => (
            <Button variant="light" onClick={copy}>
              {copied ? t('twoFactor.copied') : t('twoFactor.copy')}
            </Button>
          )}
        </CopyButton>
        <Button onClick={onDone}>{t('twoFactor.savedCodes')}</Button>
      </Group>
    </Stack>
  );
}

/** What enrolment ends with: the recovery codes, and a full access token when it began with an enrolment-only one. */
export interface EnrolmentResult {
  backupCodes: string[];
  accessToken?: string;
}

/**
 * TOTP enrolment in two calls to `POST /auth/two-factor-auth` (spec-notes §7; docs/api.md "Auth"): the first
 * shows the QR code and the secret, the second sends the authenticator app's first code. `token`,
 * when given, is the enrolment-only token of the `2FA is enforced` login answer (sent instead of
 * the session's).
 */
export function TwoFactorEnrolment({
  token,
  onEnrolled,
}: {
  token?: string;
  onEnrolled: (r: EnrolmentResult) => void;
}) {
  const { t } = useTranslation();
  const api = useApi();
  const headers = token ? { headers: { Authorization: `Bearer ${token}` } } : {};
  const begin = useMutation({
    mutationFn: async () => {
      const answer = await api.call(authEndpoints.twoFactorEnable, { body: {}, ...headers });
      if (answer.created) throw new Error('unexpected answer');
      return answer;
    },
  });
  const confirm = useMutation({
    mutationFn: async (code: string) => {
      const answer = await api.call(authEndpoints.twoFactorEnable, { body: { code }, ...headers });
      if (!answer.created) throw new Error('unexpected answer');
      return answer;
    },
    onSuccess: (answer) =>
      onEnrolled({
        backupCodes: answer.backupCodes,
        ...(answer.access_token === undefined ? {} : { accessToken: answer.access_token }),
      }),
  });
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the first call runs once per mount.
  useEffect(() => {
    begin.mutate();
  }, []);

  if (begin.isPending || begin.isIdle) return <Loader role="status" aria-label={t('twoFactor.loading')} />;
  if (begin.isError || !begin.data) {
    return (
      <Alert color="red">
        {t('twoFactor.startFailed')}{' '}
        <Button variant="subtle" size="compact-sm" onClick={() => begin.mutate()}>
          {t('common.retry')}
        </Button>
      </Alert>
    );
  }
  const offer = begin.data;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = code.replace(/\s/g, '');
    if (!/^\d{6}$/.test(value)) {
      setError(t('twoFactor.sixDigits'));
      return;
    }
    setError(null);
    confirm.mutate(value, {
      onError: (e) =>
        setError(e instanceof ApiCallError && e.message.includes('Invalid code') ? t('twoFactor.badCode') : e.message),
    });
  };
  return (
    <Stack>
      <Text>{t('twoFactor.scan')}</Text>
      <Image src={offer.qr_code} alt={t('twoFactor.qrAlt')} w={200} h={200} data-testid="totp-qr" />
      <Text size="sm">
        {t('twoFactor.orEnter')} <Code data-testid="totp-secret">{offer.secret}</Code>
      </Text>
      <form onSubmit={submit} noValidate>
        <Group align="flex-end" wrap="wrap">
          <TextInput
            label={t('twoFactor.code')}
            autoComplete="one-time-code"
            inputMode="numeric"
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
            error={error}
            style={{ flex: '1 1 180px' }}
          />
          <Button type="submit" loading={confirm.isPending}>
            {t('twoFactor.enable')}
          </Button>
        </Group>
      </form>
    </Stack>
  );
}
