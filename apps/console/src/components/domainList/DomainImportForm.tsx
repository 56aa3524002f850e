import { Constants, type DomainAction, type DomainImportResult, Messages } from '@cordon/shared';
import { Alert, Button, Checkbox, FileInput, Group, Modal, SegmentedControl, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconFileTypeCsv } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../format.ts';
import { importErrorText, listFullLimit } from './logic.ts';

/**
 * The CSV import form (spec-notes §7 Domains, §9: CSV, at most 1 MB, one domain per line or the export's
 * columns): the list it goes to, the file, and "Replace the list" (`overwrite=true`), which asks
 * for a confirmation first because it removes every entry the file does not name. A refused file
 * shows the server's text ("Line N: …") and changes nothing (the import is all or nothing).
 */
export function DomainImportForm(props: {
  list: DomainAction;
  pending: boolean;
  run: (input: { list: DomainAction; file: File; overwrite: boolean }) => Promise<DomainImportResult>;
  onDone: (result: DomainImportResult) => void;
  onCancel: () => void;
}) {
  const { t, i18n } = useTranslation();
  const [list, setList] = useState<DomainAction>(props.list);
  const [file, setFile] = useState<File | null>(null);
  const [overwrite, setOverwrite] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirming, { open: confirm, close: unconfirm }] = useDisclosure(false);

  const tooLarge = file !== null && file.size > Constants.maxUploadBytes;
  const send = () => {
    if (file === null || tooLarge) return;
    setError(null);
    props
      .run({ list, file, overwrite })
      .then(props.onDone)
      .catch((e: unknown) => {
        const max = listFullLimit(e);
        setError(max === null ? importErrorText(e) : t('domains.listFull', { max: formatNumber(max, i18n.language) }));
      })
      .finally(unconfirm);
  };
  const onSubmit = (ev: React.FormEvent) => {
    ev.preventDefault();
    if (file === null) {
      setError(Messages.required);
      return;
    }
    if (overwrite) confirm();
    else send();
  };
  const listLabel = list === 'allow' ? t('domainList.allowed') : t('domainList.blocked');

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack>
        <Stack gap={4}>
          <Text size="sm" fw={500} id="domain-import-list-label">
            {t('domainList.list')}
          </Text>
          <SegmentedControl
            aria-labelledby="domain-import-list-label"
            value={list}
            onChange={(v) => setList(v as DomainAction)}
            data={[
              { value: 'allow', label: t('domainList.allowed') },
              { value: 'block', label: t('domainList.blocked') },
            ]}
          />
        </Stack>
        <FileInput
          label={t('domainList.csvFile')}
          description={t('domainList.csvHint')}
          placeholder={t('domainList.chooseFile')}
          accept=".csv,text/csv,text/plain"
          leftSection={<IconFileTypeCsv size={16} aria-hidden />}
          clearable
          required
          value={file}
          onChange={(f) => {
            setFile(f);
            setError(null);
          }}
          error={tooLarge ? Messages.fileTooLarge : undefined}
        />
        <Checkbox
          label={t('domainList.overwrite')}
          description={t('domainList.overwriteHint')}
          checked={overwrite}
          onChange={(e) => setOverwrite(e.currentTarget.checked)}
        />
        {error ? (
          <Alert color="red" title={t('domainList.importFailed')} data-testid="import-error">
            {error}
          </Alert>
        ) : null}
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={props.onCancel}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={props.pending && !confirming} disabled={tooLarge}>
            {t('domainList.import')}
          </Button>
        </Group>
      </Stack>
      <Modal opened={confirming} onClose={unconfirm} title={t('domainList.overwriteTitle')} centered>
        <Text mb="md">{t('domainList.overwriteText', { list: listLabel })}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={unconfirm} disabled={props.pending}>
            {t('common.cancel')}
          </Button>
          <Button color="red" loading={props.pending} onClick={send} data-autofocus>
            {t('domainList.replace')}
          </Button>
        </Group>
      </Modal>
    </form>
  );
}
