import { BLOCKPAGE_MESSAGE_MAX, type BlockPage, blockPageUpdateSchema, Constants } from '@cordon/shared';
import { Button, Group, Paper, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { LogoUpload } from '../../components/LogoUpload.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import {
  type BlockPageOwner,
  useBlockPageQuery,
  useDeleteBlockPageLogoMutation,
  useDeleteBlockPageMutation,
  useSetBlockPageMutation,
  useUploadBlockPageLogoMutation,
} from './api.ts';

interface BlockPageValues {
  title: string;
  message: string;
  footer: string;
  support_contact: string;
}

/** "Reset to inherited" behind a confirmation dialog: `DELETE /ui/blockpage` for `owner`. */
function ResetButton({ owner }: { owner: BlockPageOwner }) {
  const { t } = useTranslation();
  const remove = useDeleteBlockPageMutation(owner);
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button variant="default" color="red" onClick={open}>
        {t('blockpage.reset')}
      </Button>
      <ConfirmDialog
        opened={opened}
        onClose={close}
        title={t('blockpage.confirmResetTitle')}
        text={t('blockpage.confirmResetText')}
        confirmLabel={t('blockpage.reset')}
        loading={remove.isPending}
        onConfirm={() => remove.mutateAsync(undefined).then(() => showSuccessToast(t('blockpage.resetDone')))}
      />
    </>
  );
}

/** The form of one owner's branding; `key` it by `updated_at` so a save or reset refills it. */
function BrandingForm({ owner, branding }: { owner: BlockPageOwner; branding: BlockPage }) {
  const { t } = useTranslation();
  const save = useSetBlockPageMutation(owner);
  const form = useForm<BlockPageValues>({
    initialValues: {
      title: branding.title,
      message: branding.message,
      footer: branding.footer,
      support_contact: branding.support_contact,
    },
    validate: schemaValidator(blockPageUpdateSchema),
  });
  const submit = form.onSubmit((values) => {
    save.mutate(blockPageUpdateSchema.parse(values), {
      onSuccess: () => {
        showSuccessToast(t('blockpage.saved'));
        form.resetDirty();
      },
      onError: (error) => applyServerErrors(form, error),
    });
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Text size="sm" c="dimmed">
          {t(branding.is_set ? 'blockpage.helpSet' : 'blockpage.helpInherited')}
        </Text>
        <TextInput
          label={t('blockpage.title')}
          description={t('blockpage.titleHelp')}
          maxLength={Constants.textMax}
          {...form.getInputProps('title')}
        />
        <Textarea
          label={t('blockpage.message')}
          autosize
          minRows={3}
          maxLength={BLOCKPAGE_MESSAGE_MAX}
          {...form.getInputProps('message')}
        />
        <TextInput
          label={t('blockpage.supportContact')}
          description={t('blockpage.supportContactHelp')}
          maxLength={Constants.textMax}
          {...form.getInputProps('support_contact')}
        />
        <TextInput label={t('blockpage.footer')} maxLength={Constants.textMax} {...form.getInputProps('footer')} />
        <Group justify="flex-end" wrap="wrap">
          {branding.is_set ? <ResetButton owner={owner} /> : null}
          <Button type="submit" loading={save.isPending} disabled={!form.isDirty()}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The owner's logo: upload (multipart `POST /ui/blockpage/logo`) and removal. */
function BlockPageLogo({ owner, logo }: { owner: BlockPageOwner; logo: string | null }) {
  const upload = useUploadBlockPageLogoMutation(owner);
  const remove = useDeleteBlockPageLogoMutation(owner);
  return (
    <LogoUpload
      logo={logo}
      upload={(file) => upload.mutateAsync(file)}
      remove={() => remove.mutateAsync(undefined)}
      pending={upload.isPending || remove.isPending}
    />
  );
}

/**
 * The block-page branding of `owner` (spec-notes §2 "block page" / "global block page"; spec-notes §7
 * `/ui/blockpage`): logo, title, message, support contact and footer, each falling back to the next
 * level when empty (customer → MSP → system → built-in).
 */
export function BlockPagePanel({ owner }: { owner: BlockPageOwner }) {
  const query = useBlockPageQuery(owner);
  return (
    <Paper withBorder p="md" radius="md" maw={640}>
      <QueryState query={query}>
        {(branding) => (
          <Stack gap="xl">
            <BlockPageLogo owner={owner} logo={branding.logo} />
            <BrandingForm key={branding.updated_at ?? 'unset'} owner={owner} branding={branding} />
          </Stack>
        )}
      </QueryState>
    </Paper>
  );
}
