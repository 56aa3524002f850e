import { Button } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from './ConfirmDialog.tsx';

/**
 * A "Delete" button behind a confirmation dialog naming what goes (`text`); `onConfirm` runs the
 * delete and the dialog closes when it settles. `confirmLabel` names the dialog's action when it is
 * not a delete (a reset confirms with "Reset"); default "Delete".
 */
export function ConfirmDeleteButton(props: {
  label: string;
  title: string;
  text: string;
  loading: boolean;
  onConfirm: () => Promise<unknown>;
  confirmLabel?: string;
}) {
  const { t } = useTranslation();
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button color="red" variant="light" leftSection={<IconTrash size={16} aria-hidden />} onClick={open}>
        {props.label}
      </Button>
      <ConfirmDialog
        opened={opened}
        onClose={close}
        title={props.title}
        text={props.text}
        confirmLabel={props.confirmLabel ?? t('common.delete')}
        loading={props.loading}
        onConfirm={props.onConfirm}
      />
    </>
  );
}
