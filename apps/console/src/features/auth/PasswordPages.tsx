import { adminRegisterSchema, ErrorTexts, passwordForgotSchema, passwordResetSchema } from '@cordon/shared';
import { Alert, Anchor, Button, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { ApiCallError } from '../../api/client.ts';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { usePasswordForgotMutation, usePasswordResetMutation, useRegisterMutation } from './api.ts';

interface PasswordValues {
  full_name: string;
  password: string;
  password_confirmation: string;
}

/** A new password twice (spec-notes §5 rule and "Passwords must match."), sent with the link's token. */
function NewPasswordForm(props: { kind: 'register' | 'reset' }) {
  const { t } = useTranslation();
  const token = useSearchParams()[0].get('token') ?? '';
  const register = useRegisterMutation();
  const reset = usePasswordResetMutation();
  const mutation = props.kind === 'register' ? register : reset;
  const schema = props.kind === 'register' ? adminRegisterSchema : passwordResetSchema;
  const prepare = (v: PasswordValues) => ({
    token,
    password: v.password,
    password_confirmation: v.password_confirmation,
    ...(props.kind === 'register' && v.full_name.trim() !== '' ? { full_name: v.full_name } : {}),
  });
  const form = useForm<PasswordValues>({
    initialValues: { full_name: '', password: '', password_confirmation: '' },
    validate: schemaValidator(schema, prepare),
  });
  const [done, setDone] = useState<string | null>(null);
  const submit = form.onSubmit((values) => {
    const body = prepare(values);
    const onError = (error: unknown) => applyServerErrors(form, error);
    const onSuccess = (r: { email: string }) => setDone(r.email);
    if (props.kind === 'register') register.mutate(adminRegisterSchema.parse(body), { onSuccess, onError });
    else reset.mutate(passwordResetSchema.parse(body), { onSuccess, onError });
  });
  const linkError = mutation.error instanceof ApiCallError && mutation.error.fields?.token;
  if (done) {
    return (
      <Stack>
        <Alert color="green" data-testid="password-set">
          {t('password.done', { email: done })}
        </Alert>
        <Anchor component={Link} to="/">
          {t('password.toLogin')}
        </Anchor>
      </Stack>
    );
  }
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        {!/^[A-Za-z0-9_-]{43}$/.test(token) || linkError ? (
          <Alert color="red" role="alert">
            {t('password.badLink')}
          </Alert>
        ) : null}
        {props.kind === 'register' ? (
          <TextInput
            label={t('password.fullName')}
            description={t('password.fullNameHelp')}
            {...form.getInputProps('full_name')}
          />
        ) : null}
        <PasswordInput
          label={t('password.new')}
          autoComplete="new-password"
          required
          {...form.getInputProps('password')}
        />
        <PasswordInput
          label={t('password.confirm')}
          autoComplete="new-password"
          required
          {...form.getInputProps('password_confirmation')}
        />
        <Text size="sm" c="dimmed">
          {t('password.rule')}
        </Text>
        <Button type="submit" loading={mutation.isPending} fullWidth>
          {props.kind === 'register' ? t('password.register') : t('password.reset')}
        </Button>
      </Stack>
    </form>
  );
}

function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder shadow="sm" p="xl" radius="md" maw={460} w="100%">
      <Title order={1} size="h3" mb="lg">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

/** `/register?token=…`: completes an invitation (`POST /auth/adminregister/`, spec-notes §7). */
export function RegisterPage() {
  const { t } = useTranslation();
  return (
    <Card title={t('pages.register')}>
      <NewPasswordForm kind="register" />
    </Card>
  );
}

/** `/reset-password?token=…`: sets a new password from the mailed link (`POST /auth/password`, spec-notes §7). */
export function ResetPasswordPage() {
  const { t } = useTranslation();
  return (
    <Card title={t('pages.resetPassword')}>
      <NewPasswordForm kind="reset" />
    </Card>
  );
}

/**
 * `/forgot-password`: asks for a reset link (`POST /auth/password/forgot`, spec-notes §7). The answer is the
 * same for any address; a failure shows the spec's "Something went wrong requesting password reset.
 * Please try again."
 */
export function ForgotPasswordPage() {
  const { t } = useTranslation();
  const forgot = usePasswordForgotMutation();
  const form = useForm<{ email: string }>({
    initialValues: { email: '' },
    validate: schemaValidator(passwordForgotSchema),
  });
  const submit = form.onSubmit((values) => forgot.mutate(passwordForgotSchema.parse(values)));
  return (
    <Card title={t('pages.forgotPassword')}>
      {forgot.isSuccess ? (
        <Stack>
          <Alert color="green" data-testid="reset-requested">
            {t('password.requested')}
          </Alert>
          <Anchor component={Link} to="/">
            {t('password.toLogin')}
          </Anchor>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            {forgot.isError ? (
              <Alert color="red" role="alert">
                {ErrorTexts.passwordResetFailed}
              </Alert>
            ) : null}
            <Text size="sm">{t('password.forgotHelp')}</Text>
            <TextInput
              label={t('login.email')}
              type="email"
              autoComplete="username"
              required
              {...form.getInputProps('email')}
            />
            <Button type="submit" loading={forgot.isPending} fullWidth>
              {t('password.sendLink')}
            </Button>
            <Anchor component={Link} to="/" size="sm">
              {t('password.toLogin')}
            </Anchor>
          </Stack>
        </form>
      )}
    </Card>
  );
}
