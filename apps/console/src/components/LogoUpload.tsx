import { Constants, ErrorTexts, Messages } from '@cordon/shared';
import { Button, FileInput, Group, Image, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPhoto } from '@tabler/icons-react';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiCallError } from '../api/client.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { showSuccessToast } from './toast.ts';

/** The image types the server accepts (it sniffs the bytes; this only filters the file picker). */
const ACCEPT = 'image/png,image/jpeg,image/gif,image/webp';

/** The field text of a refused upload: the server's message for `logo`, else "Failed Uploaded file." (spec-notes §8). */
export function logoErrorText(error: unknown): string {
  if (error instanceof ApiCallError) {
    const field = error.fields?.['logo'];
    if (field) return field;
  }
  return ErrorTexts.uploadFailed;
}

/**
 * A logo with its upload and removal (spec-notes §5 messages, spec-notes §7 "UI and tools" multipart variants):
 * the current logo (or "No logo"), a file picker that refuses a file over 1 MB before sending it
 * ("File size exceeds maximum of 1mb."), the server's size, dimension or type message under the
 * field, a success toast, and "Remove logo" behind a confirmation.
 * @param logo the current logo as a URL (`data:` or http), null when none at this level
 * @param upload sends the file; rejects with the API's error
 * @param remove removes the logo; rejects with the API's error
 */
export function LogoUpload(props: {
  logo: string | null;
  upload: (file: File) => Promise<unknown>;
  remove: () => Promise<unknown>;
  pending: boolean;
}) {
  const { t } = useTranslation();
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, { open: confirm, close: unconfirm }] = useDisclosure(false);
  const previewId = useId();

  const choose = (next: File | null) => {
    setFile(next);
    setError(next !== null && next.size > Constants.maxUploadBytes ? Messages.fileTooLarge : null);
  };
  const send = () => {
    if (file === null) {
      setError(Messages.required);
      return;
    }
    if (file.size > Constants.maxUploadBytes) return;
    props
      .upload(file)
      .then(() => {
        setFile(null);
        setError(null);
        showSuccessToast(t('logoUpload.uploaded'));
      })
      .catch((e: unknown) => setError(logoErrorText(e)));
  };
  const remove = () =>
    props
      .remove()
      .then(() => showSuccessToast(t('logoUpload.removed')))
      .catch((e: unknown) => setError(logoErrorText(e)));

  return (
    <Stack gap="xs" component="section" aria-labelledby={previewId}>
      <Text size="sm" fw={500} id={previewId}>
        {t('logoUpload.label')}
      </Text>
      {props.logo ? (
        <Image
          src={props.logo}
          alt={t('logoUpload.current')}
          h={64}
          w="auto"
          fit="contain"
          maw="100%"
          style={{ alignSelf: 'flex-start' }}
        />
      ) : (
        <Text size="sm" c="dimmed">
          {t('logoUpload.none')}
        </Text>
      )}
      <Group align="flex-end" wrap="wrap">
        <FileInput
          label={t('logoUpload.file')}
          description={t('logoUpload.help')}
          accept={ACCEPT}
          value={file}
          onChange={choose}
          error={error}
          clearable
          leftSection={<IconPhoto size={16} aria-hidden />}
          style={{ flex: '1 1 16rem' }}
        />
        <Button onClick={send} loading={props.pending} disabled={file === null || error === Messages.fileTooLarge}>
          {t('logoUpload.upload')}
        </Button>
        {props.logo ? (
          <Button variant="default" color="red" onClick={confirm} disabled={props.pending}>
            {t('logoUpload.remove')}
          </Button>
        ) : null}
      </Group>
      <ConfirmDialog
        opened={confirming}
        onClose={unconfirm}
        title={t('logoUpload.confirmRemoveTitle')}
        text={t('logoUpload.confirmRemoveText')}
        confirmLabel={t('logoUpload.remove')}
        loading={props.pending}
        onConfirm={remove}
      />
    </Stack>
  );
}
