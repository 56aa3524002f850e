import { passwordChangeSchema, profileUpdateSchema } from '@cordon/shared';
import { Button, Group, Paper, PasswordInput, Select, Stack, Table, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ConfirmDeleteButton } from '../../components/ConfirmDeleteButton.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { SYSTEM_TIMEZONE, TimezoneSelect, timezoneToWire } from '../../components/TimezoneSelect.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { LANGUAGE_NAMES, LANGUAGES, pickLanguage } from '../../i18n/index.ts';
import { StorageKeys } from '../../session/session.ts';
import {
  useChangePasswordMutation,
  useLogoutEverywhereMutation,
  useProfileQuery,
  useUpdateProfileMutation,
} from './api.ts';

type Profile = NonNullable<ReturnType<typeof useProfileQuery>['data']>;

interface ProfileValues {
  full_name: string;
  lang: string;
  timezone: string;
}

/** Name, language and time zone (spec-notes §3 preferences `lang`, `timezone`, also kept in the browser). */
function ProfileForm({ profile }: { profile: Profile }) {
  const { t, i18n } = useTranslation();
  const update = useUpdateProfileMutation();
  const prepare = (v: ProfileValues) => ({
    full_name: v.full_name,
    lang: v.lang === 'browser' ? '' : v.lang,
    timezone: timezoneToWire(v.timezone),
  });
  const form = useForm<ProfileValues>({
    initialValues: {
      full_name: profile.full_name,
      lang: profile.lang === '' ? 'browser' : profile.lang,
      timezone: profile.timezone === '' ? SYSTEM_TIMEZONE : profile.timezone,
    },
    validate: schemaValidator(profileUpdateSchema, prepare),
  });
  const submit = form.onSubmit((values) =>
    update.mutate(profileUpdateSchema.parse(prepare(values)), {
      onSuccess: (p) => {
        localStorage.setItem(StorageKeys.lang, p.lang);
        localStorage.setItem(StorageKeys.timezone, p.timezone);
        // The chosen language applies at once ('' follows the browser's).
        void i18n.changeLanguage(pickLanguage(p.lang, navigator.languages));
        showSuccessToast(t('profile.saved'));
      },
      onError: (error) => applyServerErrors(form, error),
    }),
  );
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('profile.name')} required {...form.getInputProps('full_name')} />
        <Select
          label={t('profile.language')}
          allowDeselect={false}
          data={[
            { value: 'browser', label: t('profile.browserLanguage') },
            ...LANGUAGES.map((l) => ({ value: l, label: LANGUAGE_NAMES[l] })),
          ]}
          {...form.getInputProps('lang')}
        />
        <TimezoneSelect {...form.getInputProps('timezone')} />
        <Group justify="flex-end">
          <Button type="submit" loading={update.isPending}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

interface PasswordValues {
  current_password: string;
  password: string;
  password_confirmation: string;
}

/** The password change (spec-notes §5 rule and "Passwords must match."); other sessions end. */
function PasswordForm() {
  const { t } = useTranslation();
  const change = useChangePasswordMutation();
  const form = useForm<PasswordValues>({
    initialValues: { current_password: '', password: '', password_confirmation: '' },
    validate: schemaValidator(passwordChangeSchema),
  });
  const submit = form.onSubmit((values) =>
    change.mutate(passwordChangeSchema.parse(values), {
      onSuccess: () => {
        form.reset();
        showSuccessToast(t('profile.passwordChanged'));
      },
      onError: (error) => applyServerErrors(form, error),
    }),
  );
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Title order={2} size="h4">
          {t('profile.changePassword')}
        </Title>
        <PasswordInput
          label={t('profile.currentPassword')}
          autoComplete="current-password"
          required
          {...form.getInputProps('current_password')}
        />
        <PasswordInput
          label={t('profile.newPassword')}
          autoComplete="new-password"
          required
          {...form.getInputProps('password')}
        />
        <PasswordInput
          label={t('profile.confirmPassword')}
          autoComplete="new-password"
          required
          {...form.getInputProps('password_confirmation')}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={change.isPending}>
            {t('profile.changePassword')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * `/profile` (spec-notes §2 userprofile layout; spec-notes §3 "Auth user"): the account, name, language and time
 * zone, the password change, and "Log out everywhere".
 */
export function ProfilePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const profile = useProfileQuery();
  const logoutAll = useLogoutEverywhereMutation();
  return (
    <>
      <PageHeader />
      <QueryState query={profile}>
        {(p) => (
          <Stack maw={640}>
            <Paper withBorder p="md" radius="md">
              <Table variant="vertical" withRowBorders={false}>
                <Table.Tbody>
                  {[
                    [t('profile.email'), p.email],
                    [t('profile.account'), p.accountname],
                    [t('profile.role'), t(`profile.roles.${p.role}`)],
                    [t('profile.twoFactor'), p.twoFactorAuthEnabled ? t('profile.on') : t('profile.off')],
                  ].map(([label, value]) => (
                    <Table.Tr key={label}>
                      <Table.Th w={220}>{label}</Table.Th>
                      <Table.Td>{value}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Paper>
            <Paper withBorder p="md" radius="md">
              <ProfileForm key={`${p.full_name}:${p.lang}:${p.timezone}`} profile={p} />
            </Paper>
            <Paper withBorder p="md" radius="md">
              <PasswordForm />
            </Paper>
            <Group>
              <ConfirmDeleteButton
                label={t('profile.logoutEverywhere')}
                confirmLabel={t('profile.logoutEverywhere')}
                title={t('profile.logoutEverywhere')}
                text={t('profile.logoutEverywhereText')}
                loading={logoutAll.isPending}
                onConfirm={() => logoutAll.mutateAsync(undefined).then(() => navigate('/', { replace: true }))}
              />
            </Group>
          </Stack>
        )}
      </QueryState>
    </>
  );
}
