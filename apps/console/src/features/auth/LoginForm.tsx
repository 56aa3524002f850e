import { ErrorTexts, HOME_PATH_BY_ROLE, loginFormSchema, Messages } from '@cordon/shared';
import { Alert, Anchor, Button, Group, Paper, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { ApiCallError } from '../../api/client.ts';
import { schemaValidator } from '../../components/form.ts';
import { useSession } from '../../session/context.ts';
import { useLoginMutation } from './api.ts';
import type { SetupState } from './TwoFactorSetupPage.tsx';

interface LoginValues {
  email: string;
  password: string;
  code: string;
}

/** The inline message for a failed login (the global handler keeps these silent: spec-notes §8). */
function loginErrorText(error: unknown): string | null {
  if (!(error instanceof ApiCallError) || error.kind !== 'http') return null;
  if (error.status === 401) return ErrorTexts.badCredentials;
  if (error.message.includes('Invalid code') || error.message.includes('Incorrect code entered')) {
    return ErrorTexts.badCode;
  }
  return null;
}

/** The login form (spec-notes §7 Auth): email and password, then a code when the account has 2FA on. */
export function LoginForm() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { ui } = useSession();
  const login = useLoginMutation();
  const [needsCode, setNeedsCode] = useState(false);
  // Focus starts on the e-mail field and returns there after a failed login, the password cleared.
  const emailRef = useRef<HTMLInputElement>(null);
  const form = useForm<LoginValues>({
    mode: 'controlled',
    initialValues: { email: '', password: '', code: '' },
    validate: schemaValidator<LoginValues>(loginFormSchema),
  });

  const submit = form.onSubmit((values) => {
    const code = values.code.trim();
    if (needsCode && !code) {
      form.setFieldError('code', Messages.required);
      return;
    }
    login.mutate(
      { email: values.email.trim(), password: values.password, ...(needsCode ? { code } : {}) },
      {
        onSuccess: (claims) => void navigate(HOME_PATH_BY_ROLE[claims.vue_role], { replace: true }),
        onError: (error) => {
          if (!(error instanceof ApiCallError)) return;
          if (loginErrorText(error) === ErrorTexts.badCredentials) {
            form.setFieldValue('password', '');
            emailRef.current?.focus();
          }
          if (error.message.includes('2FA is enabled')) setNeedsCode(true);
          // The MSP enforces 2FA: enrol with the enrolment-only token (docs/api.md "Auth").
          const enrolToken = error.fields?.['token'];
          if (error.message.includes('2FA is enforced') && enrolToken) {
            const state: SetupState = { enrolToken };
            void navigate('/login/two-factor-setup', { state });
          }
        },
      },
    );
  });

  const errorText = loginErrorText(login.error);
  return (
    <Paper withBorder shadow="sm" p="xl" radius="md">
      <Title order={1} size="h3" mb="lg">
        {t('login.heading', { title: ui.title || t('app.defaultTitle') })}
      </Title>
      <form onSubmit={submit} noValidate>
        <Stack>
          {errorText ? (
            <Alert color="red" role="alert" data-testid="login-error">
              {errorText}
            </Alert>
          ) : null}
          <TextInput
            label={t('login.email')}
            type="email"
            autoComplete="username"
            required
            ref={emailRef}
            autoFocus
            {...form.getInputProps('email')}
          />
          {/* A plain password input: a visibility toggle would share the accessible name "Password". */}
          <TextInput
            label={t('login.password')}
            type="password"
            autoComplete="current-password"
            required
            {...form.getInputProps('password')}
          />
          {needsCode ? (
            <TextInput
              label={t('login.code')}
              description={t('login.codeHelp')}
              autoComplete="one-time-code"
              inputMode="numeric"
              autoFocus
              {...form.getInputProps('code')}
            />
          ) : null}
          <Button type="submit" loading={login.isPending} fullWidth>
            {t('login.submit')}
          </Button>
          <Group justify="center">
            <Anchor component={Link} to="/forgot-password" size="sm">
              {t('login.forgot')}
            </Anchor>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
