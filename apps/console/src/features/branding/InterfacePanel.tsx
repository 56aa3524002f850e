import { Constants, MAX_NAMESERVERS, nameserverSchema, type UiInterface, uiTitleSchema } from '@cordon/shared';
import { Button, Group, Modal, Paper, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { applyServerErrors } from '../../components/form.ts';
import { LogoUpload } from '../../components/LogoUpload.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import {
  type UiLevel,
  useDeleteInterfaceLogoMutation,
  useDeleteInterfaceTitleMutation,
  useInterfaceQuery,
  useSetInterfaceMutation,
} from './api.ts';

interface InterfaceValues {
  title: string;
  /** One nameserver per line (commas accepted too). */
  nameservers: string;
}

/** The nameservers typed in the text area: one per line or comma-separated, blanks dropped. */
export function splitNameservers(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The form's checks: the shared schemas' messages (spec-notes §5), the first bad nameserver named. */
function validate(values: InterfaceValues): Partial<Record<keyof InterfaceValues, string>> {
  const errors: Partial<Record<keyof InterfaceValues, string>> = {};
  const title = uiTitleSchema.safeParse(values.title);
  if (!title.success) errors.title = title.error.issues[0]?.message ?? '';
  const list = splitNameservers(values.nameservers);
  if (list.length > MAX_NAMESERVERS) errors.nameservers = `At most ${MAX_NAMESERVERS} nameservers.`;
  const bad = list.find((n) => !nameserverSchema.safeParse(n).success);
  if (bad !== undefined) errors.nameservers = `${bad}: Must be valid IP address or host name.`;
  return errors;
}

/** "Remove title" behind a confirmation: `DELETE /ui/interface/title`. */
function RemoveTitleButton({ level }: { level: UiLevel }) {
  const { t } = useTranslation();
  const remove = useDeleteInterfaceTitleMutation(level);
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button variant="default" color="red" onClick={open}>
        {t('branding.removeTitle')}
      </Button>
      <Modal opened={opened} onClose={close} title={t('branding.removeTitle')} centered>
        <Text mb="md">{t('branding.confirmRemoveTitle')}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={close} disabled={remove.isPending}>
            {t('common.cancel')}
          </Button>
          <Button
            color="red"
            data-autofocus
            loading={remove.isPending}
            onClick={() =>
              remove.mutate(undefined, {
                onSuccess: () => showSuccessToast(t('branding.titleRemoved')),
                onSettled: close,
              })
            }
          >
            {t('branding.removeTitle')}
          </Button>
        </Group>
      </Modal>
    </>
  );
}

/** Title and nameservers of one level; `key` it by `updated_at` so a save refills it. */
function InterfaceForm({ level, ui }: { level: UiLevel; ui: UiInterface }) {
  const { t } = useTranslation();
  const save = useSetInterfaceMutation(level);
  const form = useForm<InterfaceValues>({
    initialValues: { title: ui.title, nameservers: ui.nameservers.join('\n') },
    validate,
  });
  const submit = form.onSubmit((values) => {
    save.mutate(
      { texts: { title: values.title.trim(), nameservers: splitNameservers(values.nameservers) } },
      {
        onSuccess: () => {
          showSuccessToast(t('branding.saved'));
          form.resetDirty();
        },
        onError: (error) => applyServerErrors(form, error),
      },
    );
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label={t('branding.title')}
          description={
            ui.system
              ? t('branding.titleHelpSystem')
              : t('branding.titleHelp', { inherited: ui.effective_title || '—' })
          }
          maxLength={Constants.textMax}
          {...form.getInputProps('title')}
        />
        <Textarea
          label={t('branding.nameservers')}
          description={t('branding.nameserversHelp')}
          autosize
          minRows={2}
          {...form.getInputProps('nameservers')}
        />
        <Group justify="flex-end" wrap="wrap">
          {ui.title ? <RemoveTitleButton level={level} /> : null}
          <Button type="submit" loading={save.isPending} disabled={!form.isDirty()}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * The interface branding of a level (spec-notes §2 "interface"; spec-notes §7 `/ui/interface`): the logo
 * (multipart upload, at most 1 MB, spec-notes §5 messages; removal behind a confirmation), the title shown
 * as `{ui title} | {page}` and in the header, and the nameservers told to customers. An MSP's empty
 * title or logo falls back to the system's.
 */
export function InterfacePanel({ level }: { level: UiLevel }) {
  const query = useInterfaceQuery(level);
  const save = useSetInterfaceMutation(level);
  const removeLogo = useDeleteInterfaceLogoMutation(level);
  return (
    <Paper withBorder p="md" radius="md" maw={640}>
      <QueryState query={query}>
        {(ui) => (
          <Stack gap="xl">
            <LogoUpload
              logo={ui.logo}
              upload={(file) => save.mutateAsync({ logo: file })}
              remove={() => removeLogo.mutateAsync(undefined)}
              pending={save.isPending || removeLogo.isPending}
            />
            <InterfaceForm key={ui.updated_at ?? 'unset'} level={level} ui={ui} />
          </Stack>
        )}
      </QueryState>
    </Paper>
  );
}
