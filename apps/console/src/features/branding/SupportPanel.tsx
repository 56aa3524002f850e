import { Constants, type UiSupport, uiSupportUpdateSchema } from '@cordon/shared';
import { Anchor, Button, Group, Paper, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconHeadset, IconLink, IconMail } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { type UiLevel, useSetSupportMutation, useSupportQuery } from './api.ts';

type SupportValues = Pick<UiSupport, 'email' | 'link' | 'support_desk_url'>;

/** The support contacts form of one level; `key` it by `updated_at` so a save refills it. */
function SupportForm({ level, support }: { level: UiLevel; support: UiSupport }) {
  const { t } = useTranslation();
  const save = useSetSupportMutation(level);
  const form = useForm<SupportValues>({
    initialValues: { email: support.email, link: support.link, support_desk_url: support.support_desk_url },
    validate: schemaValidator(uiSupportUpdateSchema),
  });
  const submit = form.onSubmit((values) => {
    save.mutate(uiSupportUpdateSchema.parse(values), {
      onSuccess: () => {
        showSuccessToast(t('branding.supportSaved'));
        form.resetDirty();
      },
      onError: (error) => applyServerErrors(form, error),
    });
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Text size="sm" c="dimmed">
          {t('branding.supportHelp')}
        </Text>
        <TextInput
          type="email"
          label={t('branding.supportEmail')}
          maxLength={Constants.textMax}
          {...form.getInputProps('email')}
        />
        <TextInput
          label={t('branding.supportLink')}
          placeholder="https://"
          maxLength={Constants.textMax}
          {...form.getInputProps('link')}
        />
        <TextInput
          label={t('branding.supportDesk')}
          placeholder="https://"
          maxLength={Constants.textMax}
          {...form.getInputProps('support_desk_url')}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending} disabled={!form.isDirty()}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The support contacts a level offers (spec-notes §3 "Support": email, link, support desk URL), editable. */
export function SupportEditPanel({ level }: { level: UiLevel }) {
  const query = useSupportQuery(level);
  return (
    <Paper withBorder p="md" radius="md" maw={640}>
      <QueryState query={query}>
        {(support) => <SupportForm key={support.updated_at ?? 'unset'} level={level} support={support} />}
      </QueryState>
    </Paper>
  );
}

/**
 * The customer's support page (spec-notes §2 customer settings "support"): the contacts its MSP offers,
 * else the system's, as links; a message when none is set.
 */
export function SupportContacts() {
  const { t } = useTranslation();
  const query = useSupportQuery({});
  return (
    <Paper withBorder p="md" radius="md" maw={640}>
      <QueryState query={query}>
        {(s) =>
          !s.email && !s.link && !s.support_desk_url ? (
            <Text c="dimmed" data-testid="support-none">
              {t('branding.supportNone')}
            </Text>
          ) : (
            <Stack data-testid="support-contacts">
              <Text>{t('branding.supportIntro')}</Text>
              {s.email ? (
                <Group gap="xs" wrap="nowrap">
                  <IconMail size={18} aria-hidden />
                  <Text span fw={500}>
                    {t('branding.supportEmail')}:
                  </Text>
                  <Anchor href={`mailto:${s.email}`}>{s.email}</Anchor>
                </Group>
              ) : null}
              {s.link ? (
                <Group gap="xs" wrap="nowrap">
                  <IconLink size={18} aria-hidden />
                  <Text span fw={500}>
                    {t('branding.supportLink')}:
                  </Text>
                  <Anchor href={s.link} target="_blank" rel="noopener noreferrer" style={{ wordBreak: 'break-all' }}>
                    {s.link}
                  </Anchor>
                </Group>
              ) : null}
              {s.support_desk_url ? (
                <Group gap="xs" wrap="nowrap">
                  <IconHeadset size={18} aria-hidden />
                  <Text span fw={500}>
                    {t('branding.supportDesk')}:
                  </Text>
                  <Anchor
                    href={s.support_desk_url}
                    target="_blank"
                    rel="noopener noreferrer"
                    style={{ wordBreak: 'break-all' }}
                  >
                    {s.support_desk_url}
                  </Anchor>
                </Group>
              ) : null}
            </Stack>
          )
        }
      </QueryState>
    </Paper>
  );
}
