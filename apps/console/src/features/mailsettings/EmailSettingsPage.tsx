import { type MailSettings, mailSettingsUpdateSchema, mailTestSchema, NOTIFICATION_PERIODS } from '@cordon/shared';
import { Alert, Button, Group, NumberInput, Paper, PasswordInput, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { ConfirmDeleteButton } from '../../components/ConfirmDeleteButton.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useMspId } from '../../session/context.ts';
import {
  type MailOwnerQuery,
  useDeleteMailSettingsMutation,
  useMailSettingsQuery,
  useSaveMailSettingsMutation,
  useTestMailMutation,
} from './api.ts';
import { missingPassword, storedPasswordState } from './passwordRule.ts';

interface MailValues {
  server: string;
  port: number | string;
  security: string;
  username: string;
  password: string;
  sender: string;
  from_email: string;
  notification_period: string;
  console_url: string;
}

/** The settings form: server (host name or IP, spec-notes §5 message), port, security, login, sender, from address, period. */
function MailSettingsForm({ settings, query }: { settings: MailSettings; query: MailOwnerQuery }) {
  const { t } = useTranslation();
  const save = useSaveMailSettingsMutation(query);
  const system = settings.scope === 'system';
  const prepare = (v: MailValues) => ({
    server: v.server,
    port: typeof v.port === 'number' ? v.port : Number(v.port),
    security: v.security,
    username: v.username,
    // An empty password field keeps the stored password.
    ...(v.password === '' ? {} : { password: v.password }),
    sender: v.sender,
    from_email: v.from_email,
    notification_period: v.notification_period,
    ...(system ? { console_url: v.console_url } : {}),
  });
  const validateSchema = schemaValidator(mailSettingsUpdateSchema, prepare);
  const passwordState = storedPasswordState(settings);
  const form = useForm<MailValues>({
    initialValues: {
      server: settings.server,
      port: settings.port,
      security: settings.security,
      username: settings.username,
      password: '',
      sender: settings.sender,
      from_email: settings.from_email,
      notification_period: settings.notification_period,
      console_url: settings.console_url,
    },
    validate: (values) => {
      const errors = validateSchema(values);
      return missingPassword(settings, values) ? { ...errors, password: t('mail.passwordRequired') } : errors;
    },
  });
  const submit = form.onSubmit((values) =>
    save.mutate(mailSettingsUpdateSchema.parse(prepare(values)), {
      onSuccess: () => {
        form.setFieldValue('password', '');
        showSuccessToast(t('mail.saved'));
      },
      onError: (error) => applyServerErrors(form, error),
    }),
  );
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('mail.server')} placeholder="smtp.example.com" required {...form.getInputProps('server')} />
        <Group grow align="flex-start" wrap="wrap">
          <NumberInput
            label={t('mail.port')}
            min={1}
            max={65535}
            allowDecimal={false}
            clampBehavior="none"
            {...form.getInputProps('port')}
          />
          <Select
            label={t('mail.security')}
            allowDeselect={false}
            data={[
              { value: 'none', label: t('mail.securityNone') },
              { value: 'starttls', label: t('mail.securityStarttls') },
              { value: 'tls', label: t('mail.securityTls') },
            ]}
            {...form.getInputProps('security')}
          />
        </Group>
        <TextInput label={t('mail.username')} autoComplete="off" {...form.getInputProps('username')} />
        <PasswordInput
          label={t('mail.password')}
          description={
            passwordState === 'kept'
              ? t('mail.passwordKept')
              : passwordState === 'notCopied'
                ? t('mail.passwordNotCopied')
                : undefined
          }
          autoComplete="new-password"
          {...form.getInputProps('password')}
        />
        <TextInput label={t('mail.sender')} {...form.getInputProps('sender')} />
        <TextInput label={t('mail.fromEmail')} type="email" required {...form.getInputProps('from_email')} />
        <Select
          label={t('mail.notificationPeriod')}
          placeholder={t('mail.selectPeriod')}
          required
          allowDeselect={false}
          data={NOTIFICATION_PERIODS.map((p) => ({ value: p, label: t(`mail.periods.${p}`) }))}
          {...form.getInputProps('notification_period')}
        />
        {system ? (
          <TextInput
            label={t('mail.consoleUrl')}
            description={t('mail.consoleUrlHelp')}
            placeholder="https://cordon.example.com"
            {...form.getInputProps('console_url')}
          />
        ) : null}
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** "Send test e-mail": one address, through the settings in force. */
function TestMailForm({ query }: { query: MailOwnerQuery }) {
  const { t } = useTranslation();
  const test = useTestMailMutation(query);
  const form = useForm<{ to: string }>({ initialValues: { to: '' }, validate: schemaValidator(mailTestSchema) });
  const submit = form.onSubmit((values) =>
    test.mutate(mailTestSchema.parse(values), {
      onSuccess: () => showSuccessToast(t('mail.testSent', { to: values.to })),
      onError: (error) => applyServerErrors(form, error),
    }),
  );
  return (
    <form onSubmit={submit} noValidate>
      <Group align="flex-end" wrap="wrap">
        <TextInput
          label={t('mail.testTo')}
          type="email"
          required
          style={{ flex: '1 1 220px' }}
          {...form.getInputProps('to')}
        />
        <Button type="submit" variant="light" loading={test.isPending}>
          {t('mail.sendTest')}
        </Button>
      </Group>
    </form>
  );
}

function EmailSettings({ query }: { query: MailOwnerQuery }) {
  const { t } = useTranslation();
  const settings = useMailSettingsQuery(query);
  const remove = useDeleteMailSettingsMutation(query);
  return (
    <>
      <PageHeader />
      <QueryState query={settings}>
        {(s) => (
          <Stack maw={720}>
            {s.inherited ? <Alert color="blue">{t('mail.inherited')}</Alert> : null}
            {!s.is_set && !s.inherited ? <Alert color="yellow">{t('mail.notSet')}</Alert> : null}
            <Paper withBorder p="md" radius="md">
              <MailSettingsForm key={s.updated_at ?? 'new'} settings={s} query={query} />
            </Paper>
            <Paper withBorder p="md" radius="md">
              <TestMailForm query={query} />
            </Paper>
            {s.scope === 'msp' && s.is_set ? (
              <Group>
                <ConfirmDeleteButton
                  label={t('mail.useSystem')}
                  confirmLabel={t('mail.useSystem')}
                  title={t('mail.useSystem')}
                  text={t('mail.useSystemText')}
                  loading={remove.isPending}
                  onConfirm={() => remove.mutateAsync(undefined).then(() => showSuccessToast(t('mail.removed')))}
                />
              </Group>
            ) : null}
          </Stack>
        )}
      </QueryState>
    </>
  );
}

/** `/system/global_settings/email_settings` (spec-notes §2): the system's mail settings. */
export function SystemEmailSettingsPage() {
  return <EmailSettings query={{}} />;
}

/** `/msp/global_settings/email_settings` (spec-notes §2): the MSP's own settings, or the system's in force. */
export function MspEmailSettingsPage() {
  return <EmailSettings query={{ msp_id: useMspId() }} />;
}
